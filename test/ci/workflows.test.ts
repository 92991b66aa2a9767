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

  it("ci.yml runs .ci/run on pull requests, puts the gate's markdown in the job summary, uploads the docs and verifies a configured service", () => {
    const workflow = parse(readFileSync(path.join(workflowDir, "ci.yml"), "utf8"));
    expect(Object.keys(workflow.on)).toContain("pull_request");
    const steps = JSON.stringify(workflow.jobs.test.steps);
    expect(steps).toContain("bash .ci/run");
    expect(steps).toMatch(/--format markdown >> \\"\$GITHUB_STEP_SUMMARY\\"/);
    expect(steps).toContain("actions/upload-artifact");
    expect(workflow.jobs.verify.if).toMatch(/^\$\{\{ vars\.PARTNER_API_BASE_URL != '' \}\}$/);
    expect(JSON.stringify(workflow.jobs.verify.steps)).toContain("npm run --silent verify --");
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
    workflow.jobs.verify["timeout-minutes"] = "soon";
    workflow.on = { pull_requests: null };
    expect(errorsOf(workflow).length).toBeGreaterThan(0);
  });
});
