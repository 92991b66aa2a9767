/**
 * The GitHub Actions workflows cannot run here, so they are validated against the published GitHub workflow
 * JSON Schema (vendored: see README.md beside this file): this repository's `.github/workflows/*.yml` and the
 * copy-ready workflow of docs/partners.md. A broken workflow must fail the same validation.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { repoRoot } from "../../scripts/lib/paths.ts";

const schema = JSON.parse(readFileSync(path.join(repoRoot, "test/ci/github-workflow.schema.json"), "utf8"));
const ajv = new Ajv.default({ strict: false, allErrors: true, validateFormats: false });
const validate = ajv.compile(schema);

function errorsOf(workflow: unknown): string[] {
  if (validate(workflow)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || "(root)"} ${error.message}`);
}

const workflowDir = path.join(repoRoot, ".github", "workflows");
const files = readdirSync(workflowDir).filter((name) => name.endsWith(".yml") || name.endsWith(".yaml"));

/** The YAML block after the `<!-- partner-workflow -->` marker in docs/partners.md. */
function partnerWorkflow(): string {
  const guide = readFileSync(path.join(repoRoot, "docs/partners.md"), "utf8");
  const match = /<!-- partner-workflow -->\n```yaml\n([\s\S]*?)\n```/.exec(guide);
  expect(match, "docs/partners.md has a yaml block after <!-- partner-workflow -->").not.toBeNull();
  return match![1]!;
}

describe("GitHub workflows validate against the GitHub workflow schema", () => {
  it("the schema is the published one", () => {
    expect(schema.$id).toBe("https://json.schemastore.org/github-workflow.json");
    expect(files).toContain("ci.yml");
  });

  it.each(files)(".github/workflows/%s", (file) => {
    const workflow = parse(readFileSync(path.join(workflowDir, file), "utf8"));
    expect(errorsOf(workflow)).toEqual([]);
  });

  it("ci.yml: the jobs an adopter can require, main's runs never cancelled, the gate on the merge-base with one sticky comment", () => {
    const workflow = parse(readFileSync(path.join(workflowDir, "ci.yml"), "utf8"));
    expect(Object.keys(workflow.on)).toContain("pull_request");
    expect(Object.keys(workflow.jobs)).toEqual(["gate", "lint", "test", "runtimes", "docs"]);
    expect(workflow.concurrency["cancel-in-progress"]).toBe(`\${{ github.event_name == 'pull_request' }}`);
    const { gate, test, runtimes, docs } = workflow.jobs;
    expect(gate.permissions).toEqual({ contents: "read", "pull-requests": "write" });
    const gateSteps = JSON.stringify(gate.steps);
    expect(gateSteps).toContain("args=--merge-base origin/$BASE_REF");
    expect(gateSteps).toContain('git merge-base \\"origin/$BASE_REF\\" HEAD');
    expect(gateSteps).toContain("diff -- $BASE_ARGS --format github");
    expect(gateSteps).toContain("diff -- $BASE_ARGS --format markdown");
    const comment = gate.steps.find((step: { uses?: string }) => step.uses?.startsWith("actions/github-script@"));
    expect(comment.with.script).toContain('const marker = "<!-- partner-api-contract-gate -->"');
    expect(comment.with.script).toMatch(/updateComment[\s\S]*createComment/);
    expect(JSON.stringify(test.steps)).toContain("npm run test:all");
    expect(JSON.stringify(runtimes.steps)).toContain("npm run test:runtimes");
    expect(JSON.stringify(docs.steps)).toContain("actions/upload-artifact");
    // Chromium, apt and the matrix from the shared set-up action.
    expect(test.steps[1]).toEqual({
      uses: "./.github/actions/setup",
      with: { apt: "true", chromium: "true", matrix: "true" },
    });
  });

  it("the shared set-up action caches npm, apt's downloads and the runtime matrix, and finds a Chromium", () => {
    const action = parse(readFileSync(path.join(repoRoot, ".github/actions/setup/action.yml"), "utf8"));
    const steps: { uses?: string; run?: string; with?: Record<string, string> }[] = action.runs.steps;
    expect(steps[0]).toMatchObject({
      uses: "actions/setup-node@v4",
      with: { "node-version-file": ".nvmrc", cache: "npm" },
    });
    const keys = steps.filter((step) => step.uses?.startsWith("actions/cache@")).map((step) => step.with!.key);
    expect(keys).toEqual([
      `apt-\${{ runner.os }}-\${{ hashFiles('.ci/run') }}`,
      `runtimes-\${{ runner.os }}-\${{ hashFiles('runtimes/package-lock.json') }}`,
    ]);
    const chromium = steps.find((step) => step.run?.includes("CHROMIUM_PATH="))!.run!;
    expect(chromium).toMatch(/\/usr\/bin\/chromium[\s\S]*google-chrome[\s\S]*playwright-core install chromium/);
    // The apt step installs .ci/run's own list: that line exists as the step reads it.
    expect(readFileSync(path.join(repoRoot, ".ci/run"), "utf8")).toMatch(/^sample_packages="[^"]+"$/m);
  });

  it("release.yml: the tag checked first, the packed packages tested, both published with provenance, Pages deployed, dry run for forks", () => {
    const workflow = parse(readFileSync(path.join(workflowDir, "release.yml"), "utf8"));
    expect(workflow.on.push.tags).toEqual(["v*"]);
    expect(workflow.on.workflow_dispatch.inputs["dry-run"]).toMatchObject({ type: "boolean", default: true });
    const { check, publish, docs, deploy } = workflow.jobs;
    expect(JSON.stringify(check.steps)).toContain("npm run --silent release:check -- --tag");
    expect(JSON.stringify(check.steps)).toContain('[ \\"$FORK\\" = true ]');
    expect(publish.needs).toBe("check");
    expect(publish.permissions["id-token"]).toBe("write");
    const publishSteps = JSON.stringify(publish.steps);
    expect(publishSteps).toContain("test/release/registry.slow.test.ts");
    expect(publishSteps).toContain("flags+=(--provenance)");
    expect(publishSteps).toContain("flags+=(--dry-run)");
    expect(publishSteps).toContain("partner-api-client-*.tgz release-packages/partner-api-devkit-*.tgz");
    const registry = publish.steps.find((step: { with?: Record<string, string> }) => step.with?.["registry-url"]);
    expect(registry.with).toEqual({
      "node-version-file": ".nvmrc",
      "registry-url": `\${{ vars.NPM_REGISTRY_URL || 'https://registry.npmjs.org' }}`,
      scope: `\${{ vars.NPM_SCOPE }}`,
    });
    expect(docs.needs).toEqual(["check", "publish"]);
    expect(JSON.stringify(docs.steps)).toContain("actions/upload-pages-artifact@");
    expect(deploy.if).toBe("needs.check.outputs.dry-run == 'false'");
    expect(deploy.permissions).toEqual({ pages: "write", "id-token": "write" });
    expect(deploy.steps[0].uses).toMatch(/^actions\/deploy-pages@/);
    // The package.json script the check step calls exists.
    expect(JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")).scripts["release:check"]).toContain(
      "scripts/release-check.ts",
    );
  });

  it("the partner workflow of docs/partners.md", () => {
    const workflow = parse(partnerWorkflow());
    expect(errorsOf(workflow)).toEqual([]);
    const steps = JSON.stringify(workflow.jobs);
    expect(steps).toContain("npx partner-api sandbox");
    expect(steps).toContain("npx partner-api verify");
  });

  it("a broken workflow fails the same validation", () => {
    const workflow = parse(readFileSync(path.join(workflowDir, "ci.yml"), "utf8"));
    delete workflow.jobs.test["runs-on"];
    workflow.jobs.docs["timeout-minutes"] = "soon";
    workflow.on = { pull_requests: null };
    expect(errorsOf(workflow).length).toBeGreaterThan(0);
  });
});
