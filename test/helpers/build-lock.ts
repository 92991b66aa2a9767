/**
 * One build of the packages' dist/ folders at a time across vitest workers. `npm pack` runs prepack, which empties
 * dist/ (the client's, or devkit/dist/) and builds it again; the tests that pack (test/consumer, test/devkit,
 * test/msw, test/release) run in parallel workers, and without this one would delete the other's build while it
 * packs or reads it. Every pack of either package goes through the lock: `packPackages` below.
 */

import { createHash } from "node:crypto";
import { mkdir, rmdir, stat } from "node:fs/promises";
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

/**
 * Packs the client (repository root) and the devkit (`-w devkit`) into `destination`, side by side, under the lock:
 * `npm` is the caller's way of running npm (its environment, its timeout), given the arguments and the folder.
 */
export async function packPackages(
  destination: string,
  npm: (args: string[], cwd: string) => Promise<string>,
): Promise<{ client: Packed; devkit: Packed }> {
  const release = await lockDist();
  try {
    const [client, devkit] = await Promise.all([
      npm(["pack", "--json", "--pack-destination", destination], repoRoot),
      npm(["pack", "-w", "devkit", "--json", "--pack-destination", destination], repoRoot),
    ]);
    return { client: packedOf(client), devkit: packedOf(devkit) };
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
