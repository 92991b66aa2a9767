import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  addGettingStarted,
  GETTING_STARTED_HEADING,
  gettingStartedSamples,
  readGettingStarted,
} from "../../scripts/lib/docs/getting-started.ts";
import { DEVKIT_SANDBOX_PACKAGE, sandboxEntryPath, typecheckSamples } from "../../scripts/lib/docs/typecheck.ts";
import { loadDocument } from "../contract/support/contract.ts";

const markdown = readGettingStarted();
const samples = gettingStartedSamples(markdown);
const usesSandbox = (source: string) => source.includes(`"${DEVKIT_SANDBOX_PACKAGE}"`);
// The devkit's sandbox entry is written by another change; until it exists, its sample cannot compile.
const sandboxReady = existsSync(sandboxEntryPath);
if (!sandboxReady)
  console.log(
    `SKIPPED: type-checking the sandbox sample: no ${DEVKIT_SANDBOX_PACKAGE} entry at devkit/src/sandbox/index.ts`,
  );

describe("the getting-started section of the rendered docs", () => {
  it("covers install, first call, sandbox and webhooks", () => {
    const headings = [...markdown.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(["Install", "First call", "Try the sandbox", "Receive webhooks"]);
    expect(markdown).toContain("npm install partner-api-client");
  });

  it("comes first in the rendered description, before the contract's own", () => {
    const contract = loadDocument();
    const info = addGettingStarted(contract).info as { description: string; title: string };
    expect(info.description.startsWith(`## ${GETTING_STARTED_HEADING}\n`)).toBe(true);
    expect(info.description.endsWith(contract.info.description.trim())).toBe(true);
    expect(info.title).toBe(contract.info.title);
    // The contract itself is not changed.
    expect(contract.info.description.startsWith(`## ${GETTING_STARTED_HEADING}`)).toBe(false);
  });

  it("refuses a section that does not start with its heading", () => {
    expect(() => addGettingStarted({ info: {} }, "# Something else\n")).toThrow(/must start with "## Getting started"/);
  });

  it("finds each TypeScript block, named after its heading", () => {
    expect(samples.map((s) => s.name)).toEqual([
      "getting-started-first-call",
      "getting-started-try-the-sandbox",
      "getting-started-receive-webhooks",
    ]);
    expect(gettingStartedSamples("### A b\n```ts\n1;\n```\n```ts\n2;\n```\n```sh\nls\n```\n")).toEqual([
      { name: "getting-started-a-b", source: "1;\n" },
      { name: "getting-started-a-b-2", source: "2;\n" },
    ]);
  });

  it("every sample compiles against the real client (and the devkit's sandbox once it exists)", async () => {
    const checked = samples.filter((s) => sandboxReady || !usesSandbox(s.source));
    expect(checked.length).toBeGreaterThanOrEqual(2);
    const errors = await typecheckSamples(checked);
    expect(errors.map((e) => `${e.sample}:${e.line} ${e.message}`)).toEqual([]);
  }, 120_000);

  it("the check fails on a sample that calls a path the API does not have", async () => {
    const firstCall = samples.find((s) => s.name === "getting-started-first-call")!;
    const broken = { name: "broken", source: firstCall.source.replace('"/v1/card-bins"', '"/v1/card-bin"') };
    expect(broken.source).not.toBe(firstCall.source);
    const errors = await typecheckSamples([broken]);
    expect(errors.length).toBeGreaterThan(0);
    expect(new Set(errors.map((e) => e.sample))).toEqual(new Set(["broken"]));
  }, 120_000);
});
