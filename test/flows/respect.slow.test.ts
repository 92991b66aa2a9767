/**
 * The workflows under a runner nobody here wrote: `redocly respect` (Redocly's Respect, in the installed
 * @redocly/cli) runs every workflow of openapi/workflows/ against a fresh sandbox, every check at error (success
 * criteria, status codes, content types and each answer's schema against the contracts); every one passes. The
 * partner API's workflows run with the partner server alone, as they would against staging.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { workflowsDir } from "../../scripts/lib/paths.ts";
import { respectSteps, runRespect } from "../helpers/respect.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 26 });
});
afterAll(async () => {
  await sandbox.stop();
});

const FILES = readdirSync(workflowsDir).filter((file) => file.endsWith(".arazzo.yaml"));

describe("redocly respect against a fresh sandbox", () => {
  it.each(FILES)("passes every workflow of %s, every check at error", async (file) => {
    const document = parse(readFileSync(path.join(workflowsDir, file), "utf8"));
    const sources: string[] = document.sourceDescriptions
      .filter((source: { type?: string }) => source.type !== "arazzo")
      .map((source: { name: string }) => source.name);
    const run = await runRespect(path.join("openapi", "workflows", file), {
      inputs: { apiKey: `respect-${file}` },
      servers: Object.fromEntries(sources.map((name) => [name, sandbox.url])),
    });
    expect(run.code, run.output).toBe(0);
    const [report] = Object.values(run.report.files);
    const workflows = report!.executedWorkflows;
    expect(workflows.map((workflow) => workflow.workflowId)).toEqual(
      document.workflows.map((workflow: { workflowId: string }) => workflow.workflowId),
    );
    const steps = respectSteps(workflows.flatMap((workflow) => workflow.executedSteps ?? []));
    const checks = steps.flatMap((step) => step.checks ?? []);
    expect(checks.filter((check) => !check.passed)).toEqual([]);
    // Respect checked each answer's schema, not the criteria alone.
    const schemaChecks = checks.filter((check) => check.name === "schema check");
    expect(schemaChecks.length).toBeGreaterThanOrEqual(steps.length - 1);
    expect(new Set(checks.map((check) => check.severity))).toEqual(new Set(["error"]));
  });

  it("fails a workflow when the server answers otherwise (Respect's verdict is not a formality)", async () => {
    const run = await runRespect(path.join("openapi", "workflows", "partner-api.arazzo.yaml"), {
      inputs: { apiKey: "respect-elsewhere" },
      servers: { partner: `${sandbox.url}/nowhere` },
      workflow: "onboard-company",
    });
    expect(run.code).not.toBe(0);
    const steps = respectSteps(
      Object.values(run.report.files)[0]!.executedWorkflows.flatMap((w) => w.executedSteps ?? []),
    );
    expect(steps[0]!.checks!.some((check) => check.name === "success criteria check" && !check.passed)).toBe(true);
  });
});
