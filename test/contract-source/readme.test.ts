import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { loadDocument } from "../contract/support/contract.ts";

const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");
const readme = read("README.md");
const guides = { "docs/partners.md": read("docs/partners.md"), "docs/api-team.md": read("docs/api-team.md") };
// docs/design/house.md draws the repository: every path it names must exist too.
const documents: Record<string, string> = {
  "README.md": readme,
  ...guides,
  "docs/design/house.md": read("docs/design/house.md"),
};
const doc = loadDocument();

// Top-level folders and files of the repository a document may name in backticks or link to.
// dist/, devkit/dist/ and test-output/ are build output, absent from a clean clone, so they are not checked.
// A bare file name counts only for the root's configuration files (`openapi.yaml` alone could be any folder's).
const repoPathStart =
  /^(?:openapi|generated|src|scripts|test|bench|spectral|devkit|docs|\.ci)\/|^(?:redocly\.yaml|\.spectral\.yaml|openapi-changes\.allow\.yaml|package\.json|tsconfig[\w.]*\.json|biome\.json|vitest\.config\.ts)$/;
// Placeholders such as `<area>`, `…` or `*` stand for many paths, not one.
const placeholder = /[<>…*]/;

/** Repository paths a Markdown document names: backticked paths and relative link targets, made repo-relative. */
function namedRepoPaths(file: string, text: string): string[] {
  const fromCode = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  const fromLinks = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => path.posix.normalize(path.posix.join(path.posix.dirname(file), target)));
  return [...new Set([...fromCode, ...fromLinks])]
    .filter((name) => repoPathStart.test(name) && !placeholder.test(name))
    .filter((name) => !name.startsWith("partner-api-client") && !/^devkit\/dist(?:\/|$)/.test(name))
    .flatMap(expandAlternatives)
    .map((name) => name.replace(/\/$/, ""));
}

/** `generated/openapi.{yaml,json}` names two files; `{cardId}` without a comma is part of a file name. */
function expandAlternatives(name: string): string[] {
  const alternatives = /\{([^{}]*,[^{}]*)\}/.exec(name);
  if (!alternatives) return [name];
  return alternatives[1]!.split(",").flatMap((choice) => expandAlternatives(name.replace(alternatives[0], choice)));
}

describe("README and the guides", () => {
  it("README is a front page under 120 lines linking one guide per audience", () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThan(120);
    expect(readme).toContain("](docs/partners.md)");
    expect(readme).toContain("](docs/api-team.md)");
    expect(readme).toContain("](docs/api-team.md#what-the-source-leaves-open)");
    expect(readme).toContain("](docs/partners.md#how-the-sandbox-decides-what-the-api-description-leaves-open)");
  });

  it("every path of the contract is in the file the guide's rule names (the root maps it there)", () => {
    // The guide states the rule, not a table: a new path follows it without an edit here or there.
    expect(guides["docs/api-team.md"]).toContain("every other `/` written `_`");
    const root = parse(readFileSync(path.join(repoRoot, "openapi", "openapi.yaml"), "utf8")) as {
      paths: Record<string, { $ref: string }>;
    };
    expect(Object.keys(root.paths).sort()).toEqual(Object.keys(doc.paths).sort());
    for (const [apiPath, { $ref }] of Object.entries(root.paths)) {
      const file = path.join(repoRoot, "openapi", $ref);
      expect(existsSync(file), `${$ref} (for ${apiPath})`).toBe(true);
      // the rule the guide states: drop the leading "/", write the other "/" as "_", under an area's folder
      expect(path.basename(file, ".yaml"), apiPath).toBe(apiPath.slice(1).replaceAll("/", "_"));
      expect(path.dirname(path.relative(path.join(repoRoot, "openapi", "paths"), file)), apiPath).toMatch(/^[a-z-]+$/);
    }
  });

  it("every repository path named in README and the guides exists", () => {
    let checked = 0;
    for (const [file, text] of Object.entries(documents)) {
      for (const named of namedRepoPaths(file, text)) {
        expect(existsSync(path.join(repoRoot, named)), `${file} names ${named}`).toBe(true);
        checked++;
      }
    }
    // The guides name dozens of files; a broken extractor that finds none must not pass.
    expect(checked).toBeGreaterThan(30);
  });

  it("the path check catches a missing file", () => {
    expect(namedRepoPaths("docs/x.md", "see `scripts/lib/nowhere.{ts,js}` and [it](../src/nothing.ts)")).toEqual([
      "scripts/lib/nowhere.ts",
      "scripts/lib/nowhere.js",
      "src/nothing.ts",
    ]);
  });

  it("README lists every npm script and shows the test command", () => {
    const scripts = Object.keys(JSON.parse(read("package.json")).scripts);
    for (const script of scripts)
      expect(readme, `npm script "${script}"`).toMatch(new RegExp(`npm (run )?${script.replace(":", "\\:")}\\b`));
    expect(readme).toContain("npm ci\nnpm run test:all");
  });

  it("the API team's guide has the section on what the source leaves open", () => {
    expect(guides["docs/api-team.md"]).toMatch(/^## What the source leaves open$/m);
  });
});
