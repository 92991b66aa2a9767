/**
 * The rendered reference's Workflows section (scripts/lib/docs/workflows.ts), built from openapi/workflows/ and the
 * two bundled contracts: every workflow with its purpose, inputs, steps linking to their operation's page, outputs,
 * a diagram (an SVG drawn here, one box a step, loading nothing) and the commands that run it against the local
 * sandbox; the documents beside the page, their sources pointed at the contracts there. Partner language only.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SANDBOX_PAGE } from "../../scripts/lib/docs/build.ts";
import { addWorkflows, drawWorkflow, WORKFLOWS_HEADING, workflowsSection } from "../../scripts/lib/docs/workflows.ts";
import { sandboxBundleJsonPath, workflowFiles } from "../../scripts/lib/paths.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { SOURCE_TALK } from "../contract-source/partner-language.ts";

const partner = loadDocument();
const control = JSON.parse(readFileSync(sandboxBundleJsonPath, "utf8"));
const section = workflowsSection(partner, { document: control, page: SANDBOX_PAGE });
const documents = workflowFiles().map((file) => ({
  file: path.basename(file),
  document: parse(readFileSync(file, "utf8")),
}));
const workflows = documents.flatMap(({ file, document }) =>
  document.workflows.map((workflow: any) => ({ file, workflow })),
);

/** Every operationId of a contract, with its first tag. */
function operationTags(document: any): Map<string, string> {
  const tags = new Map<string, string>();
  for (const item of Object.values<any>(document.paths))
    for (const operation of Object.values<any>(item))
      if (operation?.operationId) tags.set(operation.operationId, operation.tags[0]);
  return tags;
}

describe("the Workflows section", () => {
  it("has every workflow, with its purpose, inputs, steps, outputs, diagram and commands", () => {
    expect(section.workflows).toBe(workflows.length);
    expect(section.markdown.startsWith(`## ${WORKFLOWS_HEADING}\n`)).toBe(true);
    for (const { file, workflow } of workflows) {
      const start = section.markdown.indexOf(`### ${workflow.workflowId}\n`);
      expect(start, workflow.workflowId).toBeGreaterThan(0);
      const next = section.markdown.indexOf("\n### ", start + 1);
      const text = section.markdown.slice(start, next === -1 ? undefined : next);
      expect(text).toContain(`**${workflow.summary}.**`);
      expect(text).toContain("| `apiKey` | string | yes |");
      for (const step of workflow.steps) expect(text).toContain(`**${step.stepId}**`);
      for (const output of Object.keys(workflow.outputs)) expect(text).toContain(`\`${output}\``);
      expect(text).toContain(`![The steps of ${workflow.workflowId}](workflows/${workflow.workflowId}.svg)`);
      expect(text).toContain(`npx partner-api sandbox scenario ${workflow.workflowId}`);
      expect(text).toContain(
        `npx @redocly/cli respect workflows/${file} --workflow ${workflow.workflowId} --input apiKey=sandbox`,
      );
      // Only the partner API's workflows are offered against staging.
      expect(text.includes("--server partner=$PARTNER_API_BASE_URL")).toBe(file === "partner-api.arazzo.yaml");
    }
  });

  it("links each step to its operation's page: the reference's, or the Sandbox control page's", () => {
    const partnerTags = operationTags(partner);
    const controlTags = operationTags(control);
    const links = [...section.markdown.matchAll(/\]\(((?:sandbox\.html)?#tag\/([^/]+)\/operation\/([^)]+))\)/g)];
    expect(links.length).toBeGreaterThan(20);
    for (const [, href, tag, operationId] of links) {
      const tags = href!.startsWith(SANDBOX_PAGE) ? controlTags : partnerTags;
      expect(tags.get(operationId!), href).toBe(decodeURIComponent(tag!).replace(/-/g, " "));
    }
    expect(section.markdown).toContain("[onboard-swap-company](#/workflows/onboard-swap-company)");
  });

  it("draws one box a step, loading nothing, and puts the documents beside the page with sources there", () => {
    for (const { workflow } of workflows) {
      const svg = section.files.find((file) => file.name === `workflows/${workflow.workflowId}.svg`)!.content;
      expect(svg.match(/<rect /g)).toHaveLength(workflow.steps.length);
      expect(svg.match(/<path /g) ?? []).toHaveLength(workflow.steps.length - 1);
      expect(svg.replace('xmlns="http://www.w3.org/2000/svg"', "")).not.toMatch(/https?:|href=|<script/i);
    }
    for (const { file } of documents) {
      const beside = parse(section.files.find((entry) => entry.name === `workflows/${file}`)!.content);
      for (const source of beside.sourceDescriptions)
        expect(source.url).toMatch(source.type === "arazzo" ? /\.arazzo\.yaml$/ : /^\.\.\/(openapi|sandbox)\.yaml$/);
    }
  });

  it("speaks of the API description, not the document it was written from, and escapes what it draws", () => {
    expect(section.markdown).not.toMatch(SOURCE_TALK);
    const svg = drawWorkflow(
      {
        workflowId: "w",
        summary: "<script>x</script> & co",
        steps: [{ stepId: 'a<b"', operationId: "listCompanies" }],
      },
      new Map(),
    );
    expect(svg).toContain("&lt;script&gt;x&lt;/script&gt; &amp; co");
    expect(svg).toContain("1. a&lt;b&quot;");
    expect(svg).not.toMatch(/<script|a<b/);
  });

  it("is a sidebar group of its own: a tag without operations after the API's tags, the contract itself unchanged", () => {
    const withSection = addWorkflows(partner, section.markdown) as any;
    const tags = withSection.tags as { name: string; description?: string; "x-traitTag"?: boolean }[];
    expect(tags.slice(0, -1)).toEqual(partner.tags);
    const tag = tags.at(-1)!;
    expect(tag.name).toBe(WORKFLOWS_HEADING);
    expect(tag["x-traitTag"]).toBe(true);
    expect(`## ${WORKFLOWS_HEADING}\n\n${tag.description}`).toBe(section.markdown);
    // Not among the guide's sections of info.description.
    expect(withSection.info.description).toBe(partner.info.description);
    expect(partner.tags.map((t: { name: string }) => t.name)).not.toContain(WORKFLOWS_HEADING);
  });
});
