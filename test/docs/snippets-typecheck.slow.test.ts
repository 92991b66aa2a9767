/**
 * Every TypeScript a partner reads in the docs compiles against the client (and the devkit's sandbox entry) with
 * the repository's strict settings: the blocks of docs/partners.md, those of the rendered reference's getting-started
 * section and the reference's generated sample of each operation. All in one program, with broken copies beside
 * them to prove that the check reports a wrong snippet at its line. The same modules compile against the installed
 * tarballs in test/devkit/installed.test.ts (slow: it packs and installs).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readGettingStarted } from "../../scripts/lib/docs/getting-started.ts";
import { type OperationExample, typescriptSample } from "../../scripts/lib/docs/samples.ts";
import {
  countTypeScriptFences,
  documentedSnippets,
  GUIDE_CONTEXT,
  markdownTypeScriptBlocks,
  withGuideContext,
} from "../../scripts/lib/docs/snippets.ts";
import { partnersGuidePath } from "../../scripts/lib/paths.ts";
import { type ModuleSource, typecheckModules } from "../../scripts/lib/typecheck.ts";
import { loadDocument } from "../contract/support/contract.ts";

const guide = readFileSync(partnersGuidePath, "utf8");
const snippets = documentedSnippets(loadDocument());
const named = (prefix: string) => snippets.filter((s) => s.name.startsWith(prefix));

/** Wrong operation samples, as the sample generator would write them for a wrong operation. */
function wrongSamples(): ModuleSource[] {
  const base: OperationExample = {
    operationId: "x",
    method: "post",
    path: "/v1/cards",
    companyId: "01JD8X2K7P3M9Q4R6S8T0V2W4X",
    pathParams: [],
    queryParams: [],
    result: { statuses: [201], at: undefined, list: false, fields: [] },
    headerParams: [],
    body: { name: "bad", value: { name: "no card holder, no category, no bin" } },
  };
  const list = { ...base, method: "get" as const, body: undefined, queryParams: [["page", 1]] as [string, number][] };
  return [
    { name: "wrong-unknown-path", source: typescriptSample({ ...list, path: "/v1/no-such-path" }) },
    { name: "wrong-bad-body", source: typescriptSample(base) },
    { name: "wrong-no-company", source: typescriptSample({ ...list, companyId: undefined }) },
  ];
}

/** A guide block broken as a careless edit would break it, keeping its origin so the error points into the guide. */
function brokenGuideBlock(): ModuleSource {
  const pagination = named("partners-pagination")[0]!;
  const source = pagination.source.replace('"/v1/cards"', '"/v1/card"');
  expect(source).not.toBe(pagination.source);
  return { ...pagination, name: "broken-partners-pagination", source };
}

describe("the TypeScript in the docs", () => {
  it("takes every ```ts block of docs/partners.md and of getting started, and one sample per operation", () => {
    expect(named("partners-")).toHaveLength(countTypeScriptFences(guide));
    expect(named("getting-started-")).toHaveLength(countTypeScriptFences(readGettingStarted()));
    expect(named("getting-started-").map((s) => s.name)).toEqual([
      "getting-started-first-call",
      "getting-started-try-the-sandbox",
      "getting-started-receive-webhooks",
    ]);
    expect(named("sample-")).toHaveLength(15);
    expect(countTypeScriptFences(guide)).toBeGreaterThanOrEqual(15);
    // Each block's origin is the line after its opening fence.
    const lines = guide.split("\n");
    for (const block of named("partners-")) expect(lines[block.origin!.line - 2]!.trim(), block.name).toBe("```ts");
  });

  it("every snippet compiles against the client and the devkit's sources; a broken one is reported at its line", async () => {
    const broken = [brokenGuideBlock(), ...wrongSamples()];
    const errors = await typecheckModules([...snippets, ...broken]);
    const brokenNames = new Set(broken.map((b) => b.name));
    expect(errors.filter((e) => !brokenNames.has(e.module)).map((e) => `${e.where} ${e.message}`)).toEqual([]);
    const messages = (name: string) =>
      errors
        .filter((e) => e.module === name)
        .map((e) => `${e.where} ${e.message}`)
        .join("\n");
    expect(new Set(errors.map((e) => e.module))).toEqual(brokenNames);
    const paginationLine = guide.split("\n").findIndex((line) => line.includes('paginate(acme, "/v1/cards"')) + 1;
    expect(messages("broken-partners-pagination")).toContain(`docs/partners.md:${paginationLine} `);
    expect(messages("wrong-unknown-path")).toContain('"/v1/no-such-path"');
    expect(messages("wrong-bad-body")).toMatch(/missing the following properties.*cardHolderId/);
    expect(messages("wrong-no-company")).toContain("X-Company-Id");
  }, 120_000);
});

describe("reading blocks out of Markdown", () => {
  it("names a block after the heading above it, takes off its indentation and skips other languages", () => {
    const markdown = [
      "## Some heading",
      "```sh",
      "# not a heading",
      "```",
      "```ts",
      "1;",
      "```",
      "- a list item:",
      "",
      "  ```ts",
      "  const x = {",
      "    y: 2,",
      "  };",
      "  ```",
      "### Next",
      "```typescript",
      "3;",
      "```",
    ].join("\n");
    expect(markdownTypeScriptBlocks(markdown, "doc", "doc.md")).toEqual([
      { name: "doc-some-heading", source: "1;\n", origin: { file: "doc.md", line: 6 } },
      { name: "doc-some-heading-2", source: "const x = {\n  y: 2,\n};\n", origin: { file: "doc.md", line: 11 } },
      { name: "doc-next", source: "3;\n", origin: { file: "doc.md", line: 17 } },
    ]);
    expect(countTypeScriptFences(markdown)).toBe(3);
    expect(() => markdownTypeScriptBlocks("# A\n```ts\n1;\n", "doc", "doc.md")).toThrow(/doc\.md:2: .*never closed/);
  });

  it("gives a guide block the context names it refers to and does not declare, on its first line", () => {
    const block = (source: string) => withGuideContext({ name: "b", source }).source.split("\n")[0];
    // `client` is used, `apiKey` only as a property name and in a comment, `company` declared by the block.
    expect(block('const company = client.forCompany("x"); // apiKey\nconst o = { apiKey: 1 };\n')).toBe(
      `import { client } from "./${GUIDE_CONTEXT.name}.mjs"; const company = client.forCompany("x"); // apiKey`,
    );
    expect(block("const handler = createWebhookHandler({ secrets, on, dedupe: store });")).toMatch(
      /^import \{ secrets, on \} from/,
    );
    expect(block('import { createPartnerClient } from "partner-api-client";\ncreatePartnerClient;')).toBe(
      'import { createPartnerClient } from "partner-api-client";',
    );
  });

  it("refuses module names that are not safe file names, and an empty list", async () => {
    await expect(typecheckModules([{ name: "../escape", source: "" }])).rejects.toThrow(/module name "..\/escape"/);
    await expect(typecheckModules([])).rejects.toThrow(/at least one module/);
  });
});
