/**
 * The verify workflow a service repository copies (docs/examples/verify.yml): docs/api-team.md shows it whole, its
 * ids come from repository variables, and its verify step, run as written by bash (npx resolving `partner-api` to
 * this repository's devkit), checks the sandbox: exit 0, the markdown report in the job summary.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";

const FILE = "docs/examples/verify.yml";
const text = readFileSync(path.join(repoRoot, FILE), "utf8");

interface Step {
  name?: string;
  run?: string;
  env?: Record<string, string>;
}
const workflow = parse(text) as { jobs: { verify: { if: string; steps: Step[] } } };
const verifyStep = workflow.jobs.verify.steps.find((step) => step.run?.includes("npx partner-api verify"))!;

/** Runs the step's script with bash in `cwd`, `npx partner-api …` running the devkit's source CLI. */
function runStep(env: Record<string, string>, cwd: string): Promise<{ code: number | null; output: string }> {
  const bin = path.join(cwd, "bin");
  const npx = path.join(bin, "npx");
  mkdirSync(bin, { recursive: true });
  return new Promise((resolve, reject) => {
    {
      writeFileSync(
        npx,
        `#!/bin/sh\n[ "$1" = partner-api ] || { echo "npx $1: not the devkit" >&2; exit 97; }\nshift\nexec "${process.execPath}" ${SOURCE_NODE_ARGS.map((arg) => `"${arg}"`).join(" ")} "${path.join(repoRoot, "devkit/src/cli/main.ts")}" "$@"\n`,
      );
      chmodSync(npx, 0o755);
      const child = spawn("bash", ["-eo", "pipefail", "-c", verifyStep.run!], {
        cwd,
        env: { ...process.env, ...env, PATH: `${bin}:${process.env.PATH}` },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      child.on("error", reject);
      child.on("exit", (code) => resolve({ code, output }));
    }
  });
}

describe("docs/examples/verify.yml, the verify workflow to copy", () => {
  it("docs/api-team.md shows the file whole", () => {
    const guide = readFileSync(path.join(repoRoot, "docs/api-team.md"), "utf8");
    const block = /<!-- include: docs\/examples\/verify\.yml -->\n```yaml\n([\s\S]*?)```\n/.exec(guide);
    expect(block, "a yaml block after <!-- include: docs/examples/verify.yml -->").not.toBeNull();
    expect(block![1]).toBe(text);
  });

  it("runs npx partner-api verify with the devkit installed, ids and the deployment from repository variables", () => {
    expect(workflow.jobs.verify.if).toBe("vars.PARTNER_API_BASE_URL != ''");
    const steps = JSON.stringify(workflow.jobs.verify.steps);
    expect(steps).toContain("npm ci");
    expect(verifyStep.env).toMatchObject({
      PARTNER_API_BASE_URL: `\${{ vars.PARTNER_API_BASE_URL }}`,
      PARTNER_API_KEY: `\${{ secrets.PARTNER_API_KEY }}`,
      COMPANY_ID: `\${{ vars.PARTNER_COMPANY_ID }}`,
      IDS: `\${{ vars.PARTNER_API_IDS }}`,
    });
    expect(verifyStep.run).toContain('--company-id "$COMPANY_ID"');
    expect(verifyStep.run).toContain('--id "$id"');
    expect(verifyStep.run).toContain('>> "$GITHUB_STEP_SUMMARY"');
  });

  describe("its verify step, run as written", () => {
    let sandbox: Sandbox;
    let dir: string;
    afterAll(async () => {
      await sandbox?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("checks the sandbox with the ids given: exit 0, the report in the summary", {
      tags: ["slow"],
      timeout: 180_000,
    }, async () => {
      sandbox = await startSandbox({ port: 0, seed: 5 });
      dir = mkdtempSync(path.join(tmpdir(), "verify-workflow-"));
      const companies = (await (
        await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": "a" } })
      ).json()) as { companies: { id: string }[] };
      const companyId = companies.companies[0]!.id;
      const summary = path.join(dir, "summary.md");
      const env = {
        PARTNER_API_BASE_URL: sandbox.url,
        PARTNER_API_KEY: "a",
        PARTNER_OTHER_API_KEY: "b",
        COMPANY_ID: companyId,
        ALLOW_WRITES: "true",
        GITHUB_STEP_SUMMARY: summary,
      };
      writeFileSync(summary, "");
      const ran = await runStep(env, dir);
      expect(ran.code, ran.output + readFileSync(summary, "utf8")).toBe(0);
      const report = readFileSync(summary, "utf8");
      expect(report).toMatch(/^### ✅ partner-api verify: /m);
      expect(report).toContain(`Target ${sandbox.url}`);
      // The ids of PARTNER_API_IDS reach verify: a card holder the sandbox does not have is asked for, and fails.
      const missing = "01KDVDNA00ZDRNWNB0Y6JMK1MV";
      writeFileSync(summary, "");
      const withIds = await runStep({ ...env, IDS: `cardHolderId=${missing}` }, dir);
      expect(withIds.code).toBe(1);
      expect(readFileSync(summary, "utf8")).toContain(`card holder ${missing} does not exis`);
      // A bad id from the variables is named, exit 2, and nothing is reported.
      writeFileSync(summary, "");
      const bad = await runStep(
        { PARTNER_API_BASE_URL: sandbox.url, PARTNER_API_KEY: "a", IDS: "planet=1", GITHUB_STEP_SUMMARY: summary },
        dir,
      );
      expect(bad.code).toBe(2);
      expect(bad.output).toMatch(/--id "planet=1": the name must be one of/);
    });
  });
});
