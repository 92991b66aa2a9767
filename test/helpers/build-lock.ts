/**
 * One build of the packages' dist/ folders at a time across vitest workers. `npm pack` runs prepack, which empties
 * dist/ (the client's, or devkit/dist/) and builds it again; the tests that pack (test/consumer, test/devkit,
 * test/msw, test/release) run in parallel workers, and without this one would delete the other's build while it
 * packs or reads it. Every pack of either package goes through the lock: `packPackages` below, which also packs
 * only once for the same sources: the tarballs are kept, keyed by what goes into them (`packInputsKey`).
 */

import { createHash } from "node:crypto";
import { copyFile, mkdir, readdir, readFile, rm, rmdir, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../../scripts/lib/paths.ts";

const LOCK = path.join(
  os.tmpdir(),
  `partner-api-dist-lock-${createHash("sha256").update(repoRoot).digest("hex").slice(0, 12)}`,
);
/** A lock older than this was left by a killed run. */
const STALE_MS = 10 * 60_000;

/** Waits for the lock (mkdir is atomic), then returns its release. */
export async function lockDist(timeoutMs = 5 * 60_000): Promise<() => Promise<void>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await mkdir(LOCK);
      return () => rmdir(LOCK).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = await stat(LOCK).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_MS) await rmdir(LOCK).catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`dist/ stayed locked (${LOCK}) for ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** What `npm pack --json` says of one tarball. */
export interface Packed {
  filename: string;
  files: { path: string }[];
}

/** What a pack is built from: the sources and manifests under these (dist/ and node_modules/ left out). */
const PACK_INPUTS = ["package.json", "tsconfig.json", "tsconfig.build.json", "src", "generated", "scripts", "devkit"];
const NOT_INPUTS = new Set(["dist", "node_modules"]);

/**
 * A key that changes when anything a pack is built from changes: each input file's path, size and modification
 * time under `root`.
 */
export async function packInputsKey(root: string): Promise<string> {
  const hash = createHash("sha256");
  const visit = async (relative: string): Promise<void> => {
    const info = await stat(path.join(root, relative)).catch(() => undefined);
    if (info === undefined) return;
    if (info.isDirectory()) {
      const entries = (await readdir(path.join(root, relative))).filter((name) => !NOT_INPUTS.has(name)).sort();
      for (const name of entries) await visit(path.join(relative, name));
    } else hash.update(`${relative}\0${info.size}\0${info.mtimeMs}\n`);
  };
  for (const input of PACK_INPUTS) await visit(input);
  return hash.digest("hex").slice(0, 16);
}

/** Where packs of this repository are kept: one folder per inputs key. */
const PACKS = `partner-api-packs-${createHash("sha256").update(repoRoot).digest("hex").slice(0, 12)}-`;

/**
 * Packs the client (repository root) and the devkit (`-w devkit`) into `destination`, side by side, under the lock:
 * `npm` is the caller's way of running npm (its environment, its timeout), given the arguments and the folder. A
 * pack of the same inputs made before (by another test file of the run) is copied instead of built again.
 */
export async function packPackages(
  destination: string,
  npm: (args: string[], cwd: string) => Promise<string>,
): Promise<{ client: Packed; devkit: Packed }> {
  const release = await lockDist();
  try {
    const kept = path.join(os.tmpdir(), PACKS + (await packInputsKey(repoRoot)));
    const saved = await readFile(path.join(kept, "packed.json"), "utf8").then(
      (text) => JSON.parse(text) as { client: Packed; devkit: Packed },
      () => undefined,
    );
    if (saved !== undefined) {
      for (const packed of [saved.client, saved.devkit])
        await copyFile(path.join(kept, packed.filename), path.join(destination, packed.filename));
      return saved;
    }
    const [client, devkit] = await Promise.all([
      npm(["pack", "--json", "--pack-destination", destination], repoRoot),
      npm(["pack", "-w", "devkit", "--json", "--pack-destination", destination], repoRoot),
    ]);
    const packed = { client: packedOf(client), devkit: packedOf(devkit) };
    // Older packs of this repository go; the new one is complete before its packed.json says so.
    for (const name of await readdir(os.tmpdir()))
      if (name.startsWith(PACKS)) await rm(path.join(os.tmpdir(), name), { recursive: true, force: true });
    await mkdir(kept, { recursive: true });
    for (const each of [packed.client, packed.devkit])
      await copyFile(path.join(destination, each.filename), path.join(kept, each.filename));
    await writeFile(path.join(kept, "packed.json"), JSON.stringify(packed));
    return packed;
  } finally {
    await release();
  }
}

/** The one tarball of `npm pack --json`'s output (prepack's own lines may come before the JSON). */
function packedOf(output: string): Packed {
  const json = output.slice(output.indexOf("["), output.lastIndexOf("]") + 1);
  const [packed] = JSON.parse(json) as Packed[];
  if (!packed) throw new Error(`npm pack named no tarball:\n${output}`);
  return packed;
}
