import { describe, expect, it } from "vitest";
import {
  addGettingStarted,
  GETTING_STARTED_HEADING,
  readGettingStarted,
} from "../../scripts/lib/docs/getting-started.ts";
import { loadDocument } from "../contract/support/contract.ts";

// Its TypeScript blocks compile with every other snippet of the docs: test/docs/snippets-typecheck.test.ts.
const markdown = readGettingStarted();

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
});
