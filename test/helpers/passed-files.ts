/**
 * Which files changed since a per-file check last passed on them, the way ESLint's `--cache` decides: each file's
 * digest is recorded once the check passed on it, under a salt (the tool's version and configuration), and a file
 * is checked again when its bytes differ, it is new, or the salt changed. The record lives in node_modules/.cache
 * (never committed): a clean install checks everything.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { CHECK_CACHE_DIR, writeJsonAtomically } from "../../scripts/lib/check-stamp.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

interface Record {
  salt: string;
  passed: { [file: string]: string };
}

const recordFile = (name: string) => path.join(CHECK_CACHE_DIR, `passed-${name}.json`);

/** The repository's files (tracked, or new and not ignored) whose names end with one of `extensions`. */
export function repositoryFiles(extensions: readonly string[]): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    .filter((file) => file !== "" && extensions.some((extension) => file.endsWith(extension)))
    .sort();
}

function digestOf(file: string): string | undefined {
  try {
    return createHash("sha256")
      .update(readFileSync(path.join(repoRoot, file)))
      .digest("base64url");
  } catch {
    // Listed by git but gone from the working tree (deleted, not staged): nothing to check.
    return undefined;
  }
}

/**
 * The files of `files` (paths from the repository root) the check `name` has not passed on as they are now, the
 * files it passed on that are gone, and `passed()` to call once the check passed: it records every file's digest.
 */
export function changedSincePass(
  name: string,
  files: readonly string[],
  salt: string,
): { changed: string[]; removed: string[]; passed: () => void } {
  let record: Record = { salt, passed: Object.create(null) };
  try {
    const read = JSON.parse(readFileSync(recordFile(name), "utf8")) as Record;
    if (read.salt === salt && typeof read.passed === "object" && read.passed !== null) record = read;
  } catch {
    // No record yet (or not one): every file is checked.
  }
  const now = new Map<string, string>();
  for (const file of files) {
    const digest = digestOf(file);
    if (digest !== undefined) now.set(file, digest);
  }
  const changed = [...now].filter(([file, digest]) => record.passed[file] !== digest).map(([file]) => file);
  // Gone since the pass: nothing to check in them, but a check over a whole program must run again.
  const removed = Object.keys(record.passed).filter((file) => !now.has(file));
  return {
    changed,
    removed,
    passed() {
      const passed: Record["passed"] = Object.create(null);
      for (const [file, digest] of now) passed[file] = digest;
      writeJsonAtomically(recordFile(name), { salt, passed } satisfies Record);
    },
  };
}
