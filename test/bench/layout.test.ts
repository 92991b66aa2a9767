import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";

/** Every relative module a TypeScript file imports (static `import`/`export … from` and dynamic `import()`). */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((match) => match[1]!);
  return found.map((specifier) => path.relative(repoRoot, path.resolve(path.dirname(file), specifier)));
}

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join(repoRoot, dir, name));
}

describe("imports go one way", () => {
  it("bench/ uses itself, scripts/lib/, the devkit and the package's public entry, never src/ internals", () => {
    const allowed = (target: string) =>
      target.startsWith("bench/") ||
      target.startsWith("scripts/lib/") ||
      target.startsWith("devkit/src/") ||
      target.startsWith("devkit/scripts/") ||
      target === "src/index.ts";
    const offending = tsFiles("bench").flatMap((file) =>
      relativeImports(file)
        .filter((target) => !allowed(target))
        .map((target) => `${path.relative(repoRoot, file)} imports ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it("nothing in scripts/ imports bench/ (the bench CLI lives in bench/)", () => {
    const offending = tsFiles("scripts").flatMap((file) =>
      relativeImports(file)
        .filter((target) => target.startsWith("bench/"))
        .map((target) => `${path.relative(repoRoot, file)} imports ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it("the check sees imports: bench/cli.ts imports the runner and the harness", () => {
    const targets = relativeImports(path.join(repoRoot, "bench", "cli.ts"));
    expect(targets).toContain("scripts/lib/cli.ts");
    expect(targets).toContain("bench/harness.ts");
  });
});
