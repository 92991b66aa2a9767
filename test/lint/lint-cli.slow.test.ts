import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { lintCommand } from "../../scripts/lint.ts";
import { runInProcess, runScript } from "../helpers/run.ts";

const scratch = mkdtempSync(path.join(os.tmpdir(), "lint-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("npm run lint", () => {
  it("passes on the contract with 0 errors and 0 warnings, and says how long it took", async () => {
    const run = await runInProcess(lintCommand, []);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      /lint passed: 0 errors, 0 warnings, 0 notes \(Redocly 0, Spectral 0, sandbox 0, across both contracts 0, workflows 0\) in \d/,
    );
    expect(run.stderr).toContain("✓ Redocly lint of openapi/openapi.yaml");
    expect(run.stderr).toContain("✓ Spectral lint of the bundle");
  });

  it("fails on a defective copy of the contract, naming the rule and the place of each problem", async () => {
    const copy = path.join(scratch, "openapi");
    cpSync(path.join(repoRoot, "openapi"), copy, { recursive: true });
    const file = path.join(copy, "paths/companies/v1_companies.yaml");
    // a GET whose operationId starts with "fetch", and a summary removed
    writeFileSync(
      file,
      readFileSync(file, "utf8")
        .replace("operationId: listCompanies", "operationId: fetchCompanies")
        .replace("  summary: List companies\n", ""),
    );
    const run = await runInProcess(lintCommand, ["--root", path.join(copy, "openapi.yaml")]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/v1_companies\.yaml:\d+:\d+ +error +redocly\/operation-summary/);
    expect(run.stdout).toMatch(
      /bundle-of-.*openapi\.yaml:\d+:\d+ +error +spectral\/partner-operation-id-verb +operationId "fetchCompanies"/,
    );
    // the company-scope rule knows unscoped operations by id, so the rename trips it too
    expect(run.stdout).toMatch(/spectral\/partner-company-scope +"fetchCompanies" has company scope/);
    expect(run.stderr).toMatch(
      /FAILED: lint: 3 errors, 0 warnings, 0 notes \(Redocly 1, Spectral 2, sandbox 0, across both contracts 0, workflows 0\) \(after \d/,
    );
  });

  it("rejects a --root that does not exist, naming it, with exit code 2 as a process", () => {
    const run = runScript("lint.ts", ["--root", "openapi/nope.yaml"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--root: no file at openapi/nope.yaml");
  });
});
