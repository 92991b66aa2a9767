/**
 * No file the repository tracks holds a merge's conflict markers: a conflict resolved by hand once left both sides
 * of a header comment, markers included, inside a comment where neither the compiler nor Biome saw them.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";

/** A line git writes at a conflict: seven or more `<`, `=`, `>` or `|` at its start (git uses more in renames). */
const MARKER = /^(?:<{7,}(?: |$)|>{7,}(?: |$)|\|{7,}(?: |$)|={7,}$)/m;

/** The lines of a text that look like conflict markers, numbered from 1. */
function conflictMarkers(text: string): number[] {
  const lines = text.split("\n");
  return lines.flatMap((line, index) => (MARKER.test(line) ? [index + 1] : []));
}

describe("conflict markers", () => {
  it("are found in a text git left at a conflict, and not in one that only looks alike", () => {
    const conflict = ["a", "<<<<<<<< HEAD:x.ts", "b", "========", "c", ">>>>>>>> store:y.ts", "d"].join("\n");
    expect(conflictMarkers(conflict)).toEqual([2, 4, 6]);
    expect(conflictMarkers("a <<<<<<< b\n// ======= heading\n=== title\n")).toEqual([]);
  });

  it("are in no tracked text file", () => {
    const files = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
      .split("\0")
      .filter((file) => /\.(?:ts|js|mjs|cjs|json|ya?ml|md|html|css|sh)$/.test(file) || file === ".ci/run");
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => {
      const lines = conflictMarkers(readFileSync(path.join(repoRoot, file), "utf8"));
      return lines.map((line) => `${file}:${line}`);
    });
    expect(found).toEqual([]);
  });
});
