/**
 * Every link between the repository's Markdown documents lands on a file and a heading that exist, every section a
 * source file cites (`docs/design/flows.md, "Respect's schema check"`) is in the document it names, and every design
 * note carries its date and is listed in the API team's guide. Sections move between the guide and docs/design/; a
 * link left behind fails here.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import {
  type DocumentLink,
  documentAnchors,
  headingSlug,
  markdownLinks,
  sectionReferences,
} from "../helpers/markdown-links.ts";

const tracked = spawnSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
  .stdout.split("\0")
  .filter((file) => file !== "" && existsSync(path.join(repoRoot, file)));
const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");
const markdown = tracked.filter((file) => file.endsWith(".md"));
// The checker's own files cite made-up documents on purpose (its control cases).
const checkerFiles = new Set(["test/docs/links.test.ts", "test/helpers/markdown-links.ts"]);
const sources = tracked.filter(
  (file) =>
    /\.(ts|js|mjs|yaml|yml|md)$/.test(file) &&
    !file.startsWith("generated/") &&
    !file.startsWith("release/") &&
    !checkerFiles.has(file),
);

/** What is wrong with a link, or undefined when it lands. */
function problem(link: DocumentLink, readTarget: (file: string) => string | undefined): string | undefined {
  const where = `${link.from}:${link.line} → ${link.file}${link.anchor ? `#${link.anchor}` : ""}`;
  const text = readTarget(link.file);
  if (text === undefined) return `${where}: no such file`;
  if (link.anchor && link.file.endsWith(".md") && !documentAnchors(text).has(link.anchor))
    return `${where}: no heading with that anchor`;
  if (link.quote) {
    const flat = (value: string) => value.replace(/\s+/g, " ");
    if (!flat(text).includes(flat(link.quote)))
      return `${link.from}:${link.line} cites "${link.quote}": not in ${link.file}`;
  }
  return undefined;
}

const readTracked = (file: string) => {
  const full = path.join(repoRoot, file);
  if (!existsSync(full)) return undefined;
  return statSync(full).isDirectory() ? "" : readFileSync(full, "utf8");
};

describe("links between the documents", () => {
  it("finds the documents and their links (an extractor that finds none must not pass)", () => {
    expect(markdown).toContain("docs/api-team.md");
    expect(markdown.filter((file) => file.startsWith("docs/design/")).length).toBeGreaterThan(5);
    expect(markdown.flatMap((file) => markdownLinks(file, read(file))).length).toBeGreaterThan(50);
  });

  it("every relative link of every Markdown document lands on a file and, with an anchor, a heading", () => {
    const problems = markdown
      .flatMap((file) => markdownLinks(file, read(file)))
      .map((link) => problem(link, readTracked))
      .filter(Boolean);
    expect(problems).toEqual([]);
  });

  it("every document a source file names exists, and every section it cites by name is in it", () => {
    const references = sources.flatMap((file) => sectionReferences(file, read(file)));
    expect(references.length).toBeGreaterThan(3);
    expect(references.map((link) => problem(link, readTracked)).filter(Boolean)).toEqual([]);
  });

  // A note keeps its decisions and figures, not its history (the figures' dates live in bench/RESULTS.md).
  it("every design note is listed in the API team's guide", () => {
    const notes = markdown.filter((file) => /^docs\/design\/[^/]+\.md$/.test(file));
    const guide = markdownLinks("docs/api-team.md", read("docs/api-team.md")).map((link) => link.file);
    for (const note of notes) expect(guide, `docs/api-team.md links to ${note}`).toContain(note);
  });
});

describe("the link checker", () => {
  it("makes GitHub's anchors", () => {
    expect(headingSlug("Conformance: `verify` in the service's CI")).toBe("conformance-verify-in-the-services-ci");
    expect(headingSlug("The devkit package (`devkit/`, `partner-api-devkit`)")).toBe(
      "the-devkit-package-devkit-partner-api-devkit",
    );
    expect(headingSlug("The control CLI (`npx partner-api sandbox <command>`)")).toBe(
      "the-control-cli-npx-partner-api-sandbox-command",
    );
    expect([...documentAnchors("# A\n## Same\n```\n# not a heading\n```\n## Same\n")]).toEqual(["a", "same", "same-1"]);
  });

  it("reports a missing file, a missing anchor and a missing cited section; skips code and web links", () => {
    const files: Record<string, string> = { "docs/a.md": "# Here\n", "docs/design/b.md": "## There\n" };
    const links = markdownLinks(
      "docs/design/c.md",
      "[ok](../a.md#here) [gone](../nowhere.md) [bad](b.md#elsewhere) [web](https://example.com/#x)\n" +
        "`[code](../nowhere.md)`\n```\n[fenced](../nowhere.md)\n```\n[self](#top)",
    );
    const cited = sectionReferences(
      "src/x.ts",
      '// see docs/design/b.md, "There" and docs/a.md, "Not here"; docs/design/gone.md says why; docs/other.md',
    );
    const found = [...links, ...cited].map((link) => problem(link, (file) => files[file]));
    expect(found).toEqual([
      undefined,
      "docs/design/c.md:1 → docs/nowhere.md: no such file",
      "docs/design/c.md:1 → docs/design/b.md#elsewhere: no such file".replace(
        "no such file",
        "no heading with that anchor",
      ),
      "docs/design/c.md:6 → docs/design/c.md#top: no such file",
      undefined,
      'src/x.ts:1 cites "Not here": not in docs/a.md',
      "src/x.ts:1 → docs/design/gone.md: no such file",
    ]);
  });
});
