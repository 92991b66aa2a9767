import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { loadDocument } from "../contract/support/contract.ts";

const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
const doc = loadDocument();

describe("README", () => {
  it("maps every path of the contract to its file, and every file it names exists", () => {
    const rows = [
      ...readme.matchAll(/^\| [^|]+ \| `(?:[A-Z]+(?:`, `[A-Z]+)? )?([^`]+)` \| `(openapi\/paths\/[^`]+\.yaml)` \|$/gm),
    ].map((m) => [m[1]!, m[2]!] as const);
    expect(rows.map(([apiPath]) => apiPath).sort()).toEqual(Object.keys(doc.paths).sort());
    for (const [apiPath, file] of rows) {
      expect(existsSync(path.join(repoRoot, file)), `${file} (for ${apiPath})`).toBe(true);
      // the rule the README states: drop the leading "/", write the other "/" as "_"
      expect(path.basename(file, ".yaml")).toBe(apiPath.slice(1).replaceAll("/", "_"));
    }
  });

  it("lists every npm script and shows the test command", () => {
    const scripts = Object.keys(JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")).scripts);
    for (const script of scripts)
      expect(readme, `npm script "${script}"`).toMatch(new RegExp(`npm (run )?${script.replace(":", "\\:")}\\b`));
    expect(readme).toContain("npm ci\nnpm test");
  });

  it("has the section on what the source leaves open", () => {
    expect(readme).toMatch(/^## What the source leaves open$/m);
  });
});
