import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  addGettingStarted,
  GETTING_STARTED_HEADING,
  INSTALL_PLACEHOLDER,
  readGettingStarted,
} from "../../scripts/lib/docs/getting-started.ts";
import { partnerInstallSteps } from "../../scripts/lib/docs/install-steps.ts";
import { partnersGuidePath } from "../../scripts/lib/paths.ts";
import { loadDocument } from "../contract/support/contract.ts";

// Its TypeScript blocks compile with every other snippet of the docs: test/docs/snippets-typecheck.test.ts.
const markdown = readGettingStarted();

describe("the getting-started section of the rendered docs", () => {
  it("covers install, first call, sandbox and webhooks", () => {
    const headings = [...markdown.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(["Install", "First call", "Try the sandbox", "Receive webhooks"]);
    expect(markdown).toContain("npm install partner-api-client");
  });

  it("says the partners' guide's install steps, from the registry and from tarballs, read from docs/partners.md", () => {
    const guide = readFileSync(partnersGuidePath, "utf8");
    const { markdown: steps, commands } = partnerInstallSteps(guide);
    expect(guide).toContain(steps);
    const install = markdown.slice(markdown.indexOf("### Install\n"), markdown.indexOf("### First call\n"));
    expect(install.trim()).toBe(`### Install\n\n${steps}`);
    expect(markdown).not.toContain(INSTALL_PLACEHOLDER);
    // From the registry and from tarballs: every command of the guide's blocks is shown.
    expect(commands.length).toBe(2);
    for (const command of commands.flat()) expect(install).toContain(`${command}\n`);
    // Changed in the guide, changed in the rendered section.
    const changed = guide.replace("npm install partner-api-client\n", "npm install partner-api-client@next\n");
    expect(readGettingStarted(changed)).toContain("npm install partner-api-client@next\n");
    expect(() => readGettingStarted(guide.replace("### Install\n", "### Installing\n"))).toThrow(
      /docs\/partners\.md has no "### Install" section/,
    );
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
