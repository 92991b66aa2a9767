import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docsCommand } from "../../scripts/docs.ts";
import { ASSET_REPLACEMENTS, findExternalLoads, replaceRemoteAssets } from "../../scripts/lib/docs/build.ts";
import { bundleJsonPath, repoRoot } from "../../scripts/lib/paths.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { renderedTexts, SOURCE_TALK } from "../contract-source/partner-language.ts";
import { type InProcessRun, runInProcess, runScript } from "../helpers/run.ts";

describe("findExternalLoads()", () => {
  it("reports scripts, styles, images, CSS and module imports from other hosts", () => {
    const html = [
      '<script src="https://cdn.example/a.js"></script>',
      "<link rel='stylesheet' href='//fonts.googleapis.com/css?family=Roboto'>",
      '<img src="http://img.example/x.png">',
      "<style>@import url(https://css.example/b.css); body { background: url('https://bg.example/c.png') }</style>",
      '<script type="module">import { hydrate } from "https://cdn.redocly.com/redoc/v3/redoc.standalone.js";</script>',
    ].join("\n");
    expect(findExternalLoads(html)).toEqual(
      expect.arrayContaining([
        "https://cdn.example/a.js",
        "//fonts.googleapis.com/css?family=Roboto",
        "http://img.example/x.png",
        "https://css.example/b.css",
        "https://bg.example/c.png",
        "https://cdn.redocly.com/redoc/v3/redoc.standalone.js",
      ]),
    );
  });

  it("does not count links, local assets and data: URLs as loads", () => {
    const html =
      '<a href="https://redocly.com/redoc/">docs by</a><img src="data:image/svg+xml,x"><script src="app.js"></script><link href="openapi.yaml">';
    expect(findExternalLoads(html)).toEqual([]);
  });
});

describe("replaceRemoteAssets()", () => {
  it("swaps every known remote asset for its local replacement", () => {
    const html = ASSET_REPLACEMENTS.map(({ remote }) => `"${remote}"`).join(" ");
    const result = replaceRemoteAssets(html);
    for (const { remote, local } of ASSET_REPLACEMENTS) {
      expect(result).not.toContain(remote);
      expect(result).toContain(local);
    }
    expect(findExternalLoads(result)).toEqual([]);
  });

  it("fails, naming the asset, when Redoc no longer references one (its page changed)", () => {
    expect(() => replaceRemoteAssets("<html></html>")).toThrow(
      /Redoc no longer references https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini-full\.svg/,
    );
  });
});

describe("npm run docs", () => {
  let out: string;
  let run: InProcessRun;
  let html: string;
  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), "docs-build-test-"));
    run = await runInProcess(docsCommand, ["--out", out]);
    html = await readFile(path.join(out, "index.html"), "utf8").catch(() => "");
  }, 600_000);
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it("exits 0 and says what it built and how long it took", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /wrote .*index\.html \(\d+\.\d\d MiB, self-contained\) with 15 operations, 168 code samples and 6 webhooks, plus openapi\.yaml, openapi\.json, errors\.html, changelog\.html, versions\/0\.1\.0\/index\.html, try\.html in (\d+ ms|\d+\.\d\d s|\d+ min \d+ s)/,
    );
    expect(run.stdout).toContain(`Preview: npm run docs:preview -- --dir ${path.relative(repoRoot, out)}`);
    expect(run.stderr).toContain(
      "added samples in TypeScript, curl, Python, Java, Go, C#, PHP, Ruby to 15 operations and 6 webhooks",
    );
    expect(run.stderr).toMatch(/✓ build the API reference into .* \((\d+ ms|\d+\.\d\d s|\d+ min \d+ s)\)/);
  });

  it("writes a page that loads nothing from another host, with a CSP that forbids it and telemetry off", () => {
    expect(html.length).toBeGreaterThan(100_000);
    expect(findExternalLoads(html)).toEqual([]);
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    expect(html).toContain('"disableTelemetry":true');
    // The renderer is inlined, not imported from the CDN.
    expect(html).not.toContain("cdn.redocly.com/redoc");
    expect(html).toContain("hydrate(__redoc_definition");
  });

  it("carries every operation, webhook and schema of the contract, with samples for each operation", () => {
    const contract = loadDocument();
    const definition = JSON.parse(html.match(/const __redoc_definition = (.*);\n/)![1]!);
    const operationIds = (doc: any) =>
      Object.values<any>(doc.paths)
        .flatMap((item) =>
          Object.values<any>(item)
            .filter((op) => op?.operationId)
            .map((op) => op.operationId),
        )
        .sort();
    expect(operationIds(definition)).toEqual(operationIds(contract));
    expect(Object.keys(definition.webhooks)).toEqual(Object.keys(contract.webhooks));
    expect(Object.keys(definition.components.schemas)).toEqual(Object.keys(contract.components.schemas));
    for (const item of Object.values<any>(definition.paths)) {
      for (const op of Object.values<any>(item).filter((o) => o?.operationId)) {
        expect(
          op["x-codeSamples"].map((s: any) => s.label),
          op.operationId,
        ).toEqual(["TypeScript", "curl", "Python", "Java", "Go", "C#", "PHP", "Ruby"]);
      }
    }
    // The reference says which languages a test runs.
    expect(definition.info.description).toMatch(
      /## Code samples\n[\s\S]*a test runs every sample exactly as shown, against a fresh sandbox account and against the mock/,
    );
    // The prerendered HTML already shows what the contract leaves unspecified.
    expect(html).toContain("What is not specified");
    // The H1 is the page's name; the API's full title and summary open the description, the getting-started
    // section right after them, rendered.
    expect(definition.info.title).toBe("Reference");
    const lead = `**${contract.info.title}**\n\n${contract.info.summary}\n\n`;
    expect(definition.info.description.startsWith(`${lead}## Getting started\n`)).toBe(true);
    expect(html).toContain("Getting started");
  });

  it("renders no text that talks about the source instead of to partners", () => {
    const definition = JSON.parse(html.match(/const __redoc_definition = (.*);\n/)![1]!);
    const talk = renderedTexts(definition).filter(([, text]) => SOURCE_TALK.test(text));
    expect(talk.map(([pointer]) => pointer)).toEqual([]);
    // What the reader sees in the prerendered page: the markup without scripts, styles and tags.
    const visible = html
      .replace(/<script[\s\S]*?<\/script>/gi, " ")
      .replace(/<style[\s\S]*?<\/style>/gi, " ")
      .replace(/<[^>]+>/g, " ");
    expect(visible).toContain("Getting started");
    expect(visible.match(new RegExp(SOURCE_TALK.source, "gi")) ?? []).toEqual([]);
  });

  it("puts the bundled contract beside the page, byte for byte", async () => {
    expect(await readFile(path.join(out, "openapi.json"), "utf8")).toBe(await readFile(bundleJsonPath, "utf8"));
    expect((await stat(path.join(out, "openapi.yaml"))).size).toBeGreaterThan(1000);
  });

  it("rejects an unknown argument with exit code 2 as a process, pointing at --help", () => {
    const bad = runScript("docs.ts", ["--nope"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("Unknown option '--nope'");
    expect(bad.stderr).toContain("npm run docs -- --help");
  });

  it("--help shows the options; an empty --out is bad input", async () => {
    const help = await runInProcess(docsCommand, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--out <dir>");
    const empty = await runInProcess(docsCommand, ["--out="]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--out needs a folder, got an empty value");
  });
});
