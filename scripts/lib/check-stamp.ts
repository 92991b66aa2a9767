/**
 * A passed check remembered by what it read: `npm run generate -- --check` records, once it passes, a digest of
 * every input it could depend on and one of each file it compared; a later check whose inputs and compared files
 * are byte for byte the same passes without bundling and generating again. The stamp lives in node_modules/.cache
 * (never committed, gone with a clean install), so CI's first check is always a full one.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./paths.ts";

/** Where the repository's checks keep what they learned (never committed; gone with a clean install). */
export const CHECK_CACHE_DIR = path.join(repoRoot, "node_modules", ".cache", "partner-api");

/** Writes `value` as JSON whole and renames it into place: two writers at once leave one whole file, never a torn one. */
export function writeJsonAtomically(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(value));
  renameSync(temporary, file);
}

/**
 * The files at `paths` under `root` (files as they are, folders read whole, node_modules skipped, what is missing
 * left out), sorted, from `root`; only names ending with one of `extensions` when given.
 */
export function filesUnder(root: string, paths: readonly string[], extensions?: readonly string[]): string[] {
  const found: string[] = [];
  const wanted = (file: string) => extensions === undefined || extensions.some((ending) => file.endsWith(ending));
  for (const start of paths) {
    const info = statSync(path.join(root, start), { throwIfNoEntry: false });
    if (info === undefined) continue;
    if (!info.isDirectory()) {
      if (wanted(start)) found.push(start);
      continue;
    }
    for (const entry of readdirSync(path.join(root, start), { recursive: true, encoding: "utf8" })) {
      const file = path.posix.join(start, entry.split(path.sep).join("/"));
      if (!file.split("/").includes("node_modules") && wanted(file) && statSync(path.join(root, file)).isFile())
        found.push(file);
    }
  }
  return [...new Set(found)].sort();
}

/**
 * A digest of the files at `paths` under `root` (filesUnder), by path and bytes: an input that appears, goes,
 * moves or changes changes it.
 */
export function digestOf(root: string, paths: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of filesUnder(root, paths))
    hash
      .update(`file\0${file}\0`)
      .update(readFileSync(path.join(root, file)))
      .update("\0");
  return hash.digest("hex");
}

interface Stamp {
  inputs: string;
  /** Each compared file (from the root) and the digest of its bytes when the check passed. */
  compared: Record<string, string>;
  at: string;
}

const fileDigest = (file: string): string | undefined => {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    return undefined;
  }
};

/** When the stamp at `stampFile` was written for these inputs and the compared files are unchanged since: its time. */
export function stampHolds(stampFile: string, root: string, inputs: string): string | undefined {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, "utf8")) as Stamp;
  } catch {
    return undefined;
  }
  if (stamp?.inputs !== inputs || typeof stamp.compared !== "object" || stamp.compared === null) return undefined;
  const compared = Object.entries(stamp.compared);
  if (compared.length === 0) return undefined;
  for (const [file, digest] of compared) if (fileDigest(path.join(root, file)) !== digest) return undefined;
  return stamp.at;
}

/**
 * Records a passed check: its inputs' digest and each compared file's content as the check found it (`compared`:
 * absolute path → the text the file held, which a passed check found equal to a fresh one).
 */
export function writeStamp(
  stampFile: string,
  root: string,
  inputs: string,
  compared: Iterable<[string, string]>,
): void {
  const digests: Record<string, string> = Object.create(null);
  for (const [file, content] of compared)
    digests[path.relative(root, file).split(path.sep).join("/")] = createHash("sha256").update(content).digest("hex");
  writeJsonAtomically(stampFile, { inputs, compared: digests, at: new Date().toISOString() } satisfies Stamp);
}
