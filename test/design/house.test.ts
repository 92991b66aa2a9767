/**
 * docs/design/house.md draws the repository; what it can be checked on is checked here, so it cannot go stale
 * silently: its table of who imports whom is the one the code has (every path it names exists:
 * test/contract-source/readme.test.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { repositoryFiles } from "../helpers/passed-files.ts";
import { importSpecifiers } from "../helpers/source-facts.ts";

const PARTS = ["src", "generated", "devkit", "scripts", "bench", "test"] as const;

/** The top-level part a repository path belongs to, or undefined outside them. */
function partOf(file: string): string | undefined {
  const top = file.split("/")[0]!;
  return (PARTS as readonly string[]).includes(top) ? top : undefined;
}

/** The part a module specifier of `file` points to: relative paths, and the two packages by name. */
export function importedPart(file: string, specifier: string): string | undefined {
  if (specifier === "partner-api-client" || specifier.startsWith("partner-api-client/")) return "src";
  if (specifier === "partner-api-devkit" || specifier.startsWith("partner-api-devkit/")) return "devkit";
  if (!specifier.startsWith(".")) return undefined;
  return partOf(path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)));
}

/** Each part's imports of other parts (type-only and dynamic ones included), from the code. */
function importsByPart(): Map<string, Set<string>> {
  const files = repositoryFiles([".ts", ".js", ".mjs"]).filter((file) => !file.split("/").includes("fixtures"));
  const graph = new Map<string, Set<string>>(PARTS.map((part) => [part, new Set<string>()]));
  const specifiers = importSpecifiers(files);
  for (const [index, file] of files.entries()) {
    const from = partOf(file);
    if (from === undefined) continue;
    for (const fileName of specifiers[index]!) {
      const to = importedPart(file, fileName);
      if (to !== undefined && to !== from) graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** The page's table between its markers: part → what it imports. */
export function pageTable(page: string): Map<string, string[]> {
  const found = /<!-- house-imports:[^>]*-->\n([\s\S]*?)\n<!-- \/house-imports -->/.exec(page);
  if (!found) throw new Error("docs/design/house.md has no <!-- house-imports --> table");
  const rows = found[1]!.split("\n").filter((line) => /^\| `/.test(line));
  return new Map(
    rows.map((row) => {
      const [part, imports] = row
        .split("|")
        .slice(1, 3)
        .map((cell) => cell.trim());
      return [part!.replaceAll("`", ""), [...imports!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)];
    }),
  );
}

describe("the house page", () => {
  const page = readFileSync(path.join(repoRoot, "docs/design/house.md"), "utf8");

  it("its table of who imports whom is the code's", () => {
    const code = [...importsByPart()]
      .filter(([, imports]) => imports.size > 0)
      .map(([part, imports]) => [part, [...imports].sort()] as const);
    expect([...pageTable(page)].sort()).toEqual(code.sort());
    // A part that imports nothing has no row; the page says so of generated/.
    expect(importsByPart().get("generated")!.size).toBe(0);
  });

  it("reads the page's table and the imports it counts", () => {
    expect(
      pageTable(
        "<!-- house-imports: x -->\n| Part | Imports |\n|---|---|\n| `src` | `generated` |\n<!-- /house-imports -->",
      ),
    ).toEqual(new Map([["src", ["generated"]]]));
    expect(importedPart("scripts/diff.ts", "partner-api-devkit/cli")).toBe("devkit");
    expect(importedPart("devkit/src/contract/router.ts", "partner-api-client")).toBe("src");
    expect(importedPart("devkit/src/sandbox/x.ts", "../../../generated/sandbox.js")).toBe("generated");
    expect(importedPart("devkit/src/sandbox/x.ts", "./engine.ts")).toBe("devkit");
    expect(importedPart("src/client.ts", "openapi-fetch")).toBeUndefined();
  });
});
