/**
 * `npm run lint` on the workflows (openapi/workflows/): Redocly's Arazzo rules, Spectral's spectral:arazzo and the
 * devkit's checks against both contracts are quiet on the repository's workflows, and each of the devkit's checks
 * fires on a workflow that breaks it: an operation its source does not have, an expression naming a step, output,
 * input or workflow that does not exist, a value read before the call, an arazzo source that is no shipped file,
 * an x-webhooks entry that is no webhook, x-webhooks without a companyId output. Each tool's finding names the file and line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkWorkflowDocuments } from "partner-api-devkit/cli";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { bundleContract, bundleSandboxContract } from "../../scripts/lib/bundle.ts";
import { lintWorkflows } from "../../scripts/lib/lint.ts";
import { bundleJsonPath, sandboxBundleJsonPath, workflowFiles } from "../../scripts/lib/paths.ts";

const contracts = {
  partner: JSON.parse(readFileSync(bundleJsonPath, "utf8")),
  control: JSON.parse(readFileSync(sandboxBundleJsonPath, "utf8")),
};
const shipped = workflowFiles().map((file) => ({ file: path.basename(file), text: readFileSync(file, "utf8") }));
const scratch = mkdtempSync(path.join(os.tmpdir(), "lint-workflows-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The devkit's findings once `change` edits the sandbox document (the partner one left as it is). */
function issuesAfter(change: (document: any) => void): string[] {
  const files = shipped.map(({ file, text }) => {
    if (file !== "sandbox.arazzo.yaml") return { file, text };
    const document = parse(text);
    change(document);
    return { file, text: stringify(document) };
  });
  return checkWorkflowDocuments(files, contracts).map((issue) => `${issue.file}: ${issue.at}: ${issue.message}`);
}

const workflowOf = (document: any, id: string) =>
  document.workflows.find((w: { workflowId: string }) => w.workflowId === id);
const stepOf = (document: any, workflowId: string, stepId: string) =>
  workflowOf(document, workflowId).steps.find((s: { stepId: string }) => s.stepId === stepId);

describe("the repository's workflows", () => {
  it("have no finding from the devkit's checks", () => {
    expect(checkWorkflowDocuments(shipped, contracts)).toEqual([]);
  });

  it("have no finding from Redocly, Spectral (spectral:arazzo) or the devkit's checks", {
    tags: ["slow"],
  }, async () => {
    const findings = await lintWorkflows({ partner: await bundleContract(), control: await bundleSandboxContract() });
    expect(findings).toEqual([]);
  });
});

describe("the devkit's checks fire", () => {
  it("on an operation its source does not have, or a source that mixes the two APIs", () => {
    expect(
      issuesAfter(
        (d) => (stepOf(d, "card-issued", "createCard").operationId = "$sourceDescriptions.partner.issueCard"),
      ),
    ).toEqual([
      'sandbox.arazzo.yaml: workflow card-issued, step createCard: operationId "issueCard" is not an operation of the partner API or the sandbox\'s control API',
    ]);
    expect(
      issuesAfter(
        (d) => (stepOf(d, "card-issued", "issuingTime").operationId = "$sourceDescriptions.partner.advanceClock"),
      ),
    ).toEqual([
      "sandbox.arazzo.yaml: source partner: its steps call operations of both the partner API and the sandbox's control API; a source is one of them",
    ]);
  });

  it("on an expression naming a step or an output that does not exist", () => {
    expect(
      issuesAfter((d) => (stepOf(d, "card-issued", "createCard").requestBody.payload.bin = "$steps.bins.outputs.bin")),
    ).toEqual([
      "sandbox.arazzo.yaml: workflow card-issued, step createCard, requestBody: $steps.bins.outputs.bin: names no step of workflow card-issued (its steps: cardCompany, cardHolder, createCard, issuingTime, companyCards)",
    ]);
    expect(issuesAfter((d) => (workflowOf(d, "card-issued").outputs.cardId = "$steps.createCard.outputs.id"))).toEqual([
      "sandbox.arazzo.yaml: workflow card-issued, output cardId: $steps.createCard.outputs.id: names no output of step createCard (its outputs: cardId)",
    ]);
  });

  it("on an input, a workflow's output or a workflow that does not exist", () => {
    expect(
      issuesAfter((d) => (stepOf(d, "kyb-reviewed", "kybSubmission").parameters[0].value = "$inputs.partnerKey")),
    ).toEqual([
      "sandbox.arazzo.yaml: workflow kyb-reviewed, step kybSubmission, parameter apiKey: $inputs.partnerKey: names no input of workflow kyb-reviewed (its inputs: apiKey)",
    ]);
    expect(
      issuesAfter((d) => (stepOf(d, "kyb-reviewed", "kybSubmission").outputs.companyId = "$outputs.company")),
    ).toEqual([
      "sandbox.arazzo.yaml: workflow kyb-reviewed, step kybSubmission, output companyId: $outputs.company: names no output of the workflow the step runs (its outputs: companyId, kybStatus)",
    ]);
    expect(
      issuesAfter(
        (d) => (stepOf(d, "kyb-reviewed", "kybSubmission").workflowId = "$sourceDescriptions.journeys.submit-kyb"),
      ),
    ).toEqual([
      'sandbox.arazzo.yaml: workflow kyb-reviewed, step kybSubmission: workflowId "$sourceDescriptions.journeys.submit-kyb" names no workflow',
    ]);
  });

  it("on an answer read before its call, an arazzo source that is no file here, an x-webhooks entry that is no webhook", () => {
    expect(
      issuesAfter((d) => (stepOf(d, "card-issued", "cardHolder").parameters[1].value = "$response.body#/company/id")),
    ).toEqual([
      "sandbox.arazzo.yaml: workflow card-issued, step cardHolder, parameter companyId: $response.body#/company/id: is known only after a call: in a step's successCriteria, outputs and actions",
    ]);
    expect(issuesAfter((d) => (d.sourceDescriptions[2].url = "journeys.arazzo.yaml"))).toContainEqual(
      'sandbox.arazzo.yaml: source journeys: an arazzo source must be a shipped document (partner-api.arazzo.yaml, sandbox.arazzo.yaml); "journeys.arazzo.yaml" is none of them',
    );
    expect(issuesAfter((d) => workflowOf(d, "kyb-reviewed")["x-webhooks"].push("company.kyb.approved"))).toEqual([
      expect.stringMatching(
        /^sandbox\.arazzo\.yaml: workflow kyb-reviewed: x-webhooks: "company\.kyb\.approved" is not a webhook of the partner API/,
      ),
    ]);
    expect(issuesAfter((d) => delete workflowOf(d, "kyb-reviewed").outputs.companyId)).toEqual([
      "sandbox.arazzo.yaml: workflow kyb-reviewed: x-webhooks: a workflow that lists events must have a companyId output, the company they are for (verify awaits each event for it)",
    ]);
  });
});

describe("each tool's finding", () => {
  it("names the file and the line: Redocly, Spectral and the devkit on a step id used twice", {
    tags: ["slow"],
  }, async () => {
    const file = path.join(scratch, "sandbox.arazzo.yaml");
    const text = shipped.find((entry) => entry.file === "sandbox.arazzo.yaml")!.text;
    writeFileSync(file, text.replace("stepId: acceptTerms", "stepId: clearVerification"));
    writeFileSync(path.join(scratch, "partner-api.arazzo.yaml"), shipped[0]!.text);
    const findings = await lintWorkflows({ partner: await bundleContract(), control: await bundleSandboxContract() }, [
      path.join(scratch, "partner-api.arazzo.yaml"),
      file,
    ]);
    const line = text.split("\n").findIndex((row) => row.includes("stepId: acceptTerms")) + 1;
    const tools = new Set(findings.map((finding) => finding.tool));
    expect(tools).toEqual(new Set(["redocly", "spectral", "arazzo"]));
    expect(findings).toContainEqual(
      expect.objectContaining({
        tool: "arazzo",
        message: "workflow approved-company, step clearVerification: two steps of the workflow have this stepId",
        where: expect.stringMatching(/sandbox\.arazzo\.yaml:\d+:1$/),
      }),
    );
    for (const finding of findings.filter((found) => found.tool !== "arazzo"))
      expect(finding.where, finding.message).toMatch(new RegExp(`sandbox\\.arazzo\\.yaml:(${line}|\\d+):\\d+$`));
  });
});
