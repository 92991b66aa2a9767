/**
 * A passed check remembered by what it read: `npm run generate -- --check` records, once it passes, a digest of
 * every input it could depend on and one of each file it compared; a later check whose inputs and compared files
 * are byte for byte the same passes without bundling and generating again. The stamp lives in node_modules/.cache
 * (never committed, gone with a clean install), so CI's first check is always a full one.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

/** A digest of the files at `paths` (files, or folders read whole; node_modules skipped) under `root`, by path and bytes. */
export function digestOf(root: string, paths: readonly string[]): string {
  const hash = createHash("sha256");
  const files: string[] = [];
  const walk = (relative: string): void => {
    const full = path.join(root, relative);
    let entries: string[];
    try {
      entries = readdirSync(full);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR") files.push(relative);
      else if (code !== "ENOENT") throw error;
      // A missing input is part of the digest too: its name goes in with no bytes.
      else hash.update(`missing\0${relative}\0`);
      return;
    }
    for (const entry of entries.sort()) if (entry !== "node_modules") walk(path.posix.join(relative, entry));
  };
  for (const relative of [...paths].sort()) walk(relative);
  for (const file of files)
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
  mkdirSync(path.dirname(stampFile), { recursive: true });
  const temporary = `${stampFile}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ inputs, compared: digests, at: new Date().toISOString() } satisfies Stamp));
  renameSync(temporary, stampFile);
}
