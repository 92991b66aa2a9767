/**
 * What the layout tests read from each source file with the TypeScript parser (its imports; its rooms' sizes), kept
 * on disk by the file's text, so a re-run of `npm test` parses only the files that changed since the last one.
 * An entry is keyed by a hash of the file's path and text under a salt: the parser's version and the reading
 * code's own text, so a new TypeScript or a change to what is read starts the cache over. TypeScript loads only
 * when a file is not in the cache. The cache lives in node_modules/.cache (never committed); a file that cannot
 * be read as a cache is ignored and written anew.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type TypeScript from "typescript";
import { CHECK_CACHE_DIR, writeJsonAtomically } from "../../scripts/lib/check-stamp.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

const require = createRequire(import.meta.url);
let typescript: typeof TypeScript | undefined;

/** The TypeScript compiler API, loaded on first use (about a second of CPU). */
export function typeScript(): typeof TypeScript {
  typescript ??= require("typescript") as typeof TypeScript;
  return typescript;
}

const TS_VERSION = (require("typescript/package.json") as { version: string }).version;
/** Entries a cache holds at most (a few thousand edits of a few hundred files) before it starts over. */
const MAX_ENTRIES = 20_000;

interface CacheFile {
  salt: string;
  entries: Record<string, unknown>;
}

function readCache(file: string, salt: string): Map<string, unknown> {
  try {
    const read = JSON.parse(readFileSync(file, "utf8")) as CacheFile;
    if (read.salt === salt && read.entries && typeof read.entries === "object")
      return new Map(Object.entries(read.entries));
  } catch {
    // No cache yet, or not one: every file is read.
  }
  return new Map();
}

/**
 * `reader(file, text)` for each of `files` (paths from the repository root), from the cache `name` where the same
 * text was read before by the same `reader` (its source is part of the salt, with `settings`: what it reads that
 * is not in its source) and the same TypeScript version.
 */
export function perFile<T>(
  name: string,
  files: readonly string[],
  reader: (file: string, text: string) => T,
  settings = "",
): T[] {
  const salt = createHash("sha256").update(`${TS_VERSION}\0${reader.toString()}\0${settings}`).digest("hex");
  const cacheFile = path.join(CHECK_CACHE_DIR, `source-facts-${name}.json`);
  const cached = readCache(cacheFile, salt);
  // Entries of older texts stay (other callers read other files) until there are too many: then it starts over.
  if (cached.size > MAX_ENTRIES) cached.clear();
  let missed = 0;
  const results = files.map((file) => {
    const text = readFileSync(path.join(repoRoot, file), "utf8");
    const key = createHash("sha256").update(file).update("\0").update(text).digest("base64url");
    let value = cached.get(key) as T | undefined;
    if (value === undefined) {
      value = reader(file, text);
      cached.set(key, value);
      missed++;
    }
    return value;
  });
  if (missed > 0) {
    writeJsonAtomically(cacheFile, { salt, entries: Object.fromEntries(cached) } satisfies CacheFile);
  }
  return results;
}

/** The module specifiers a file imports (static, type-only, `export … from`, dynamic `import()`), as TypeScript reads them. */
export function importSpecifiers(files: readonly string[]): string[][] {
  return perFile("imports", files, (_file, text) =>
    typeScript()
      .preProcessFile(text, true, true)
      .importedFiles.map(({ fileName }) => fileName),
  );
}
