/**
 * The guide's CI recipe for the proxy (docs/partners.md, "Watching real traffic"), run as written: bash as a CI
 * step runs it (`-eo pipefail`), `npx partner-api` in a partner's project, `npm test` its own tiny test, the
 * sandbox as the staging address. It passes on a conforming upstream, fails (exit 1) on one whose answer breaks
 * the contract, and leaves no proxy answering. Each case starts npx, npm and node (slow: its name says so); a
 * failing command, a stop and a command that cannot start are proxy.test.ts's, in-process.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { answers, projectWithBin, runCiStep } from "../helpers/partner-project.ts";
import { type Faulty, pathOf, startFaulty } from "./support/faulty.ts";

const PLACEHOLDER = "https://<your staging address>";
/** The partner's test: one call through the proxy, its exit code from TEST_EXIT once the call succeeded. */
const TEST = `const response = await fetch(\`\${process.env.PARTNER_API_BASE_URL}/v1/companies\`, { headers: { "X-API-Key": "recipe" } });
console.log("listCompanies answered", response.status);
process.exit(response.status === 200 ? Number(process.env.TEST_EXIT ?? 0) : 1);
`;

let sandbox: Sandbox;
let broken: Faulty;
let project: string;
let recipe: string;
const groups: number[] = [];
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 8 });
  // An upstream whose list of companies breaks the contract: ids that are no ULIDs.
  broken = await startFaulty(sandbox.url, {
    response(request, response) {
      if (request.method === "GET" && pathOf(request) === "/v1/companies" && response.status === 200) {
        const body = JSON.parse(response.body);
        for (const company of body.companies) company.id = "not-a-ulid";
        response.body = JSON.stringify(body);
      }
    },
  });
  project = projectWithBin({ test: "node check.mjs" });
  writeFileSync(path.join(project, "check.mjs"), TEST);
  const guide = readFileSync(path.join(repoRoot, "docs", "partners.md"), "utf8");
  recipe = /<!-- proxy-recipe[^>]*-->\n```sh\n([\s\S]*?)\n```/.exec(guide)![1]!;
});
afterAll(async () => {
  for (const pid of groups.splice(0))
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  await broken.close();
  await sandbox.stop();
  rmSync(project, { recursive: true, force: true });
});

/** The recipe as a CI step runs it, with `upstream` for the staging address. */
async function runRecipe(upstream: string, env: Record<string, string> = {}) {
  rmSync(path.join(project, "violations.jsonl"), { force: true });
  const { code, output } = await runCiStep(recipe.replace(PLACEHOLDER, upstream), project, (pid) => groups.push(pid), {
    ...process.env,
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    ...env,
  });
  const file = path.join(project, "violations.jsonl");
  const violations = existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { check: string; operationId: string })
    : undefined;
  const proxyUrl = /Proxy on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  return { code, output, violations, proxyUrl };
}

describe("the guide's proxy recipe for CI, as written", () => {
  it("is one command: the tests run behind the proxy, which stops with them", () => {
    expect(recipe).toContain(PLACEHOLDER);
    expect(recipe).toMatch(/^npx partner-api proxy .*--fail-on-violation -- npm test$/);
  });

  it("a conforming upstream and passing tests: exit 0, an empty report, no proxy left answering", async () => {
    const run = await runRecipe(sandbox.url);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/listCompanies answered 200/);
    expect(run.output).toMatch(/✓ proxy stopped: 1 request\(s\) forwarded .*0 violation\(s\).*\(npm test passed\)/);
    expect(run.violations).toEqual([]);
    expect(await answers(run.proxyUrl!)).toBe(false);
  });

  it("an answer that breaks the contract: exit 1 though the tests pass, the violation in the report", async () => {
    const run = await runRecipe(broken.url);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(/listCompanies answered 200/);
    expect(run.output).toMatch(
      /FAILED: 1 request\(s\) forwarded .*response_schema_conformance \d+ \(--fail-on-violation\)/,
    );
    expect(run.violations!.length).toBeGreaterThan(0);
    expect(new Set(run.violations!.map((violation) => `${violation.check} ${violation.operationId}`))).toEqual(
      new Set(["response_schema_conformance listCompanies"]),
    );
    expect(await answers(run.proxyUrl!)).toBe(false);
  });
});
