/**
 * The rendered reference's "Workflows" section, from the Arazzo documents of openapi/workflows/: each workflow with
 * its purpose, inputs, steps (each linking to its operation's page), outputs, the webhooks it fires, a diagram drawn
 * here at build time (an SVG file beside the page: no script, nothing fetched), and the commands that run it against
 * the local sandbox. The documents go beside the page too (workflows/), their OpenAPI sources pointed at the
 * contracts there, so the commands run from the downloaded folder. The section is the description of a tag of its
 * own (`x-traitTag`: it has no operations), so Redoc lists the workflows as a sidebar group after the API's tags,
 * not among the guide's sections of info.description.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { isObject } from "partner-api-devkit/cli";
import { parse, stringify } from "yaml";
import { workflowFiles } from "../paths.ts";

export const WORKFLOWS_HEADING = "Workflows";
/** Where the documents and diagrams go, beside index.html. */
export const WORKFLOWS_FOLDER = "workflows";

/** Where each OpenAPI source of a shipped document is beside the rendered page (workflows/ is one level down). */
const SOURCES_BESIDE_THE_PAGE: Readonly<Record<string, string>> = {
  "../openapi.yaml": "../openapi.yaml",
  "../sandbox/openapi.yaml": "../sandbox.yaml",
};

interface Step {
  stepId: string;
  description?: string;
  operationId?: string;
  workflowId?: string;
  successCriteria?: { condition: string }[];
  outputs?: Record<string, string>;
}

interface Workflow {
  workflowId: string;
  summary?: string;
  description?: string;
  inputs?: {
    properties?: Record<string, { type?: string; description?: string; default?: unknown }>;
    required?: string[];
  };
  steps: Step[];
  outputs?: Record<string, string>;
  "x-webhooks"?: string[];
}

interface ArazzoFile {
  file: string;
  document: {
    info: { title: string };
    sourceDescriptions: { name: string; url: string; type?: string }[];
    workflows: Workflow[];
  };
}

/** An operation of either contract, as a step links to it. */
interface OperationInfo {
  method: string;
  path: string;
  tag: string;
  /** The page it is on: the reference (index.html), or the sandbox control page (its file name). */
  page: "reference" | { sandbox: string };
}

function operationsOf(document: Record<string, unknown>, page: OperationInfo["page"]): Map<string, OperationInfo> {
  const found = new Map<string, OperationInfo>();
  for (const [route, item] of Object.entries((document.paths ?? {}) as Record<string, unknown>)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || typeof operation.operationId !== "string") continue;
      const tags = Array.isArray(operation.tags) ? operation.tags : [];
      found.set(operation.operationId, {
        method: method.toUpperCase(),
        path: route,
        tag: String(tags[0] ?? "default"),
        page,
      });
    }
  }
  return found;
}

/** A Redoc anchor of an operation: `#tag/<tag>/operation/<operationId>`, on its page. */
export function operationLink(operationId: string, operation: OperationInfo): string {
  const anchor = `#tag/${encodeURIComponent(operation.tag.replace(/ /g, "-"))}/operation/${encodeURIComponent(operationId)}`;
  return operation.page === "reference" ? anchor : `${operation.page.sandbox}${anchor}`;
}

/** The operation or workflow a step's reference names, without its source's prefix. */
const bareName = (reference: string) => reference.replace(/^\$sourceDescriptions\.[^.]+\./, "");

const xml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const BOX = { width: 620, height: 58, gap: 26, left: 20, top: 20 };
const COLOURS = {
  reference: { fill: "#eef4ff", stroke: "#0044d4", label: "partner API" },
  sandbox: { fill: "#fff6e5", stroke: "#b36b00", label: "sandbox control API" },
  workflow: { fill: "#f0f7f0", stroke: "#2e7d32", label: "workflow" },
} as const;

/**
 * A workflow's steps as an SVG drawing: one box a step (its id, the call or the workflow it runs, what it gives to
 * later steps), coloured by where it goes, with an arrow to the next.
 */
export function drawWorkflow(workflow: Workflow, operations: Map<string, OperationInfo>): string {
  const { width, height, gap, left, top } = BOX;
  const total = top * 2 + workflow.steps.length * height + (workflow.steps.length - 1) * gap + 24;
  const parts: string[] = [];
  workflow.steps.forEach((step, index) => {
    const y = top + index * (height + gap);
    const operation = step.operationId === undefined ? undefined : operations.get(bareName(step.operationId));
    const kind =
      step.workflowId !== undefined
        ? "workflow"
        : operation?.page === undefined || operation.page === "reference"
          ? "reference"
          : "sandbox";
    const colour = COLOURS[kind];
    const what =
      step.workflowId !== undefined
        ? `runs ${bareName(step.workflowId)}`
        : operation
          ? `${operation.method} ${operation.path}`
          : bareName(step.operationId ?? "");
    const gives = Object.keys(step.outputs ?? {});
    parts.push(
      `<rect x="${left}" y="${y}" width="${width}" height="${height}" rx="8" fill="${colour.fill}" stroke="${colour.stroke}" stroke-width="1.5"/>`,
      `<text x="${left + 14}" y="${y + 22}" font-size="14" font-weight="600" fill="#1a1a1a">${index + 1}. ${xml(step.stepId)}</text>`,
      `<text x="${left + width - 14}" y="${y + 22}" font-size="11" text-anchor="end" fill="${colour.stroke}">${colour.label}</text>`,
      `<text x="${left + 14}" y="${y + 43}" font-size="12" font-family="monospace" fill="#333">${xml(what)}</text>`,
    );
    if (gives.length > 0)
      parts.push(
        `<text x="${left + width - 14}" y="${y + 43}" font-size="11" text-anchor="end" fill="#555">gives ${xml(gives.join(", "))}</text>`,
      );
    if (index < workflow.steps.length - 1) {
      const x = left + width / 2;
      parts.push(
        `<line x1="${x}" y1="${y + height}" x2="${x}" y2="${y + height + gap - 6}" stroke="#666" stroke-width="1.5"/>`,
        `<path d="M ${x - 5} ${y + height + gap - 8} L ${x} ${y + height + gap} L ${x + 5} ${y + height + gap - 8} z" fill="#666"/>`,
      );
    }
  });
  const outputs = Object.keys(workflow.outputs ?? {});
  parts.push(
    `<text x="${left}" y="${total - 14}" font-size="12" fill="#333">outputs: ${xml(outputs.join(", ") || "none")}</text>`,
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width + left * 2}" height="${total}" viewBox="0 0 ${width + left * 2} ${total}" font-family="sans-serif" role="img">` +
    `<title>${xml(`${workflow.workflowId}: ${workflow.summary ?? ""}`)}</title>${parts.join("")}</svg>\n`
  );
}

/** Markdown table cell text: no line breaks, pipes escaped. */
const cell = (text: string) => text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();

function inputsTable(workflow: Workflow): string {
  const properties = workflow.inputs?.properties ?? {};
  const required = new Set(workflow.inputs?.required ?? []);
  const rows = Object.entries(properties).map(
    ([name, input]) =>
      `| \`${name}\` | ${input.type ?? "any"} | ${required.has(name) ? "yes" : `no (default \`${JSON.stringify(input.default)}\`)`} | ${cell(input.description ?? "")} |`,
  );
  return rows.length === 0 ? "None." : ["| input | type | required | what |", "|---|---|---|---|", ...rows].join("\n");
}

function stepLine(step: Step, index: number, operations: Map<string, OperationInfo>): string {
  let call: string;
  if (step.workflowId !== undefined) {
    const name = bareName(step.workflowId);
    call = `runs the workflow [${name}](#${workflowAnchor(name)})`;
  } else {
    const operationId = bareName(step.operationId ?? "");
    const operation = operations.get(operationId);
    call = operation
      ? `[${operationId}](${operationLink(operationId, operation)}) (\`${operation.method} ${operation.path}\`${operation.page === "reference" ? "" : ", sandbox control API"})`
      : `\`${operationId}\``;
  }
  const checks = (step.successCriteria ?? []).map((criterion) => `\`${criterion.condition}\``);
  const gives = Object.keys(step.outputs ?? {}).map((name) => `\`${name}\``);
  return [
    `${index + 1}. **${step.stepId}**: ${call}. ${step.description ?? ""}`.trimEnd(),
    checks.length > 0 ? `   Checks ${checks.join(", ")}.` : "",
    gives.length > 0 ? `   Gives ${gives.join(", ")}.` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

/** The address Redoc gives a workflow's `### <workflowId>` in the Workflows group, for links between workflows. */
function workflowAnchor(workflowId: string): string {
  return `/${WORKFLOWS_HEADING.toLowerCase()}/${workflowId.toLowerCase()}`;
}

function commands(workflow: Workflow, file: string, usesSandbox: boolean): string {
  const servers = usesSandbox
    ? "--server partner=http://127.0.0.1:4020 --server sandbox=http://127.0.0.1:4020"
    : "--server partner=http://127.0.0.1:4020";
  const lines = [
    "```sh",
    "# the sandbox on your machine (another terminal): npx partner-api sandbox",
    `npx partner-api sandbox scenario ${workflow.workflowId}`,
    `# or with Redocly's runner, from this page's folder (${WORKFLOWS_FOLDER}/ holds the documents):`,
    `npx @redocly/cli respect ${WORKFLOWS_FOLDER}/${file} --workflow ${workflow.workflowId} --input apiKey=sandbox ${servers}`,
  ];
  if (!usesSandbox)
    lines.push(
      "# against staging, with your key and the sandbox address you received:",
      `npx @redocly/cli respect ${WORKFLOWS_FOLDER}/${file} --workflow ${workflow.workflowId} --input apiKey=$PARTNER_API_KEY --server partner=$PARTNER_API_BASE_URL`,
    );
  lines.push("```");
  return lines.join("\n");
}

export interface WorkflowsSection {
  markdown: string;
  /** Files to write beside index.html: the documents and one diagram a workflow. */
  files: { name: string; content: string }[];
  workflows: number;
}

/**
 * The section and its files, from the workflow documents and the two bundled contracts (the partner API's, and the
 * control API's when there is one).
 */
export function workflowsSection(
  partner: Record<string, unknown>,
  control: { document: Record<string, unknown>; page: string } | undefined,
  files: readonly string[] = workflowFiles(),
): WorkflowsSection {
  const operations = new Map([
    ...(control ? operationsOf(control.document, { sandbox: control.page }) : []),
    ...operationsOf(partner, "reference"),
  ]);
  const documents: ArazzoFile[] = files.map((file) => ({
    file: path.basename(file),
    document: parse(readFileSync(file, "utf8")) as ArazzoFile["document"],
  }));
  const out: WorkflowsSection["files"] = [];
  const sections: string[] = [];
  let count = 0;
  for (const { file, document } of documents) {
    const usesSandbox = document.sourceDescriptions.some((source) => source.url.includes("sandbox"));
    const beside = structuredClone(document);
    for (const source of beside.sourceDescriptions)
      if (source.type !== "arazzo") source.url = SOURCES_BESIDE_THE_PAGE[source.url] ?? source.url;
    out.push({ name: `${WORKFLOWS_FOLDER}/${file}`, content: stringify(beside, { lineWidth: 0 }) });
    for (const workflow of document.workflows) {
      count++;
      const diagram = `${WORKFLOWS_FOLDER}/${workflow.workflowId}.svg`;
      out.push({ name: diagram, content: drawWorkflow(workflow, operations) });
      const webhooks = workflow["x-webhooks"] ?? [];
      sections.push(
        [
          `### ${workflow.workflowId}`,
          `**${workflow.summary ?? workflow.workflowId}.** ${(workflow.description ?? "").trim()}`,
          `Runs ${usesSandbox ? "against the sandbox (it needs the sandbox's control API)" : "against the sandbox and staging alike (the partner API alone)"}; defined in [${WORKFLOWS_FOLDER}/${file}](${WORKFLOWS_FOLDER}/${file}).`,
          `![The steps of ${workflow.workflowId}](${diagram})`,
          `**Inputs**\n\n${inputsTable(workflow)}`,
          `**Steps**\n\n${workflow.steps.map((step, index) => stepLine(step, index, operations)).join("\n")}`,
          `**Outputs**: ${
            Object.entries(workflow.outputs ?? {})
              .map(([name, expression]) => `\`${name}\` (\`${expression}\`)`)
              .join(", ") || "none"
          }.`,
          webhooks.length > 0
            ? `**Webhooks it fires**: ${webhooks.map((type) => `\`${type}\``).join(", ")} (a workflow cannot wait for a webhook: your receiver gets them).`
            : "",
          `**Run it**\n\n${commands(workflow, file, usesSandbox)}`,
        ]
          .filter(Boolean)
          .join("\n\n"),
      );
    }
  }
  const intro =
    `## ${WORKFLOWS_HEADING}\n\n` +
    "The journeys through the API, step by step, as [Arazzo 1.0.1](https://spec.openapis.org/arazzo/v1.0.1.html) " +
    "workflows: which answer's id goes into which request, and what each answer must show. Each runs with one input, " +
    "`apiKey`, and names in its outputs what you need next. Run them with the devkit's sandbox or with any Arazzo " +
    "runner (Redocly's `respect` below); copy one to write your own.";
  return { markdown: [intro, ...sections].join("\n\n"), files: out, workflows: count };
}

/** A copy of the document with the Workflows section as its last tag, a group of its own in Redoc's sidebar. */
export function addWorkflows(document: Record<string, unknown>, markdown: string): Record<string, unknown> {
  const body = markdown.replace(new RegExp(`^## ${WORKFLOWS_HEADING}\\n+`), "");
  const tags = Array.isArray(document.tags) ? document.tags : [];
  const tag = { name: WORKFLOWS_HEADING, description: body, "x-traitTag": true };
  return { ...document, tags: [...tags, tag] };
}
