/**
 * `npm run diff` end to end: exit codes, the readable and Markdown outputs, acknowledgement by
 * allowlist and by major bump, a git ref as base (in a throwaway git repository), and bad input.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { runScript } from "../helpers/run.ts";

const fixtures = path.join(repoRoot, "test", "diff", "fixtures");
const fixture = (name: string) => path.join(fixtures, name);

function diff(args: string[], cwd = repoRoot) {
  const result = runScript("diff.ts", args, { cwd });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), "diff-cli-test-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the gate on bundled files", () => {
  it("fails on a removed response field, naming it", () => {
    const run = diff(["--base", fixture("base.yaml"), "--head", fixture("head-remove-response-field.yaml")]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[NOT ACKNOWLEDGED] #/components/schemas/Widget .colour: field `colour` removed");
    expect(run.stdout).toContain("id: field-removed #/components/schemas/Widget .colour");
    expect(run.stdout).toContain("FAILED: 1 breaking change(s) not acknowledged");
  });

  it("fails on a required request field added", () => {
    const run = diff(["--base", fixture("base.yaml"), "--head", fixture("head-add-required-request-field.yaml")]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/CreateWidgetRequest \.size: required field `size` added\n\s+used by: POST \/widgets/);
  });

  it("fails on a dropped webhook", () => {
    const run = diff(["--base", fixture("base.yaml"), "--head", fixture("head-drop-webhook.yaml")]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("webhook widget.created: webhook `widget.created` removed");
  });

  it("passes an optional field with a changelog line, and says what it compared and how long it took", () => {
    const run = diff([
      "--base",
      fixture("base.yaml"),
      "--head",
      fixture("head-add-optional-field.yaml"),
      "--format",
      "markdown",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("## API changes: 1.0.0 → 1.1.0");
    expect(run.stdout).toContain(
      "### Compatible\n\n- `#/components/schemas/CreateWidgetRequest .note`: optional field `note` added (affects `POST /widgets`).",
    );
    expect(run.stdout).not.toContain("### Breaking");
    expect(run.stderr).toMatch(
      /compared file .*base\.yaml with file .*head-add-optional-field\.yaml: 2 changes: 0 breaking, 1 compatible, 1 documentation-only \(\d+(\.\d+)? m?s\)/,
    );
  });

  it("passes documentation-only changes", () => {
    const run = diff(["--base", fixture("base.yaml"), "--head", fixture("head-docs-only.yaml")]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Documentation only (2)");
    expect(run.stdout).toMatch(/compared .* in \d+(\.\d+)? m?s/);
  });

  it("accepts breaking changes with a major bump of info.version", () => {
    const run = diff([
      "--base",
      fixture("base.yaml"),
      "--head",
      fixture("head-major-bump.yaml"),
      "--format",
      "markdown",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("### Breaking");
    expect(run.stdout).toContain("Acknowledged: major version bump 1.0.0 → 2.0.0.");
  });

  it("accepts a breaking change listed in the allowlist with a reason, and notes unused entries", () => {
    const allow = path.join(scratch, "allow.yaml");
    writeFileSync(
      allow,
      [
        "acknowledged:",
        '  - change: "field-removed #/components/schemas/Widget .colour"',
        "    reason: No partner ever received a colour.",
        '  - change: "path-removed /gone"',
        "    reason: Left from an earlier change.",
      ].join("\n"),
    );
    const run = diff([
      "--base",
      fixture("base.yaml"),
      "--head",
      fixture("head-remove-response-field.yaml"),
      "--allow",
      allow,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("[acknowledged] #/components/schemas/Widget .colour");
    expect(run.stdout).toContain("acknowledged by allowlist: No partner ever received a colour.");
    expect(run.stdout).toContain('note: allowlist entry "path-removed /gone" matches no breaking change');
  });

  it("rejects an allowlist entry without a reason (exit 2, naming the entry)", () => {
    const allow = path.join(scratch, "no-reason.yaml");
    writeFileSync(allow, 'acknowledged:\n  - change: "field-removed #/components/schemas/Widget .colour"\n');
    const run = diff([
      "--base",
      fixture("base.yaml"),
      "--head",
      fixture("head-remove-response-field.yaml"),
      "--allow",
      allow,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('entry 1 ("field-removed #/components/schemas/Widget .colour") has no `reason`');
  });
});

describe("bad input", () => {
  it.each([
    [["--head", "x.yaml"], "--base is required"],
    [["--base"], "--base needs a value"],
    [["--base", "HEAD", "--colour", "red"], 'unknown argument "--colour"'],
    [["--base", "HEAD", "--format", "html"], '--format "html" is not one of text, markdown'],
    [["--base", "no-such-ref-or-file"], '--base "no-such-ref-or-file" is neither a file nor a git ref'],
    [["--base", fixture("base.yaml"), "--head", "missing.yaml"], '--head "missing.yaml" cannot be read: ENOENT'],
    [
      ["--base", fixture("base.yaml"), "--allow", "missing-allow.yaml"],
      'allowlist "missing-allow.yaml" cannot be read: ENOENT',
    ],
  ])("%j exits 2 with a clear message", (args, message) => {
    const run = diff(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it("names an unparseable file and a file that is not OpenAPI", () => {
    const broken = path.join(scratch, "broken.yaml");
    writeFileSync(broken, "openapi: [3.1.0\n");
    const notOpenApi = path.join(scratch, "package.json");
    writeFileSync(notOpenApi, '{"name": "x"}');
    const a = diff(["--base", broken, "--head", fixture("base.yaml")]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--base "broken.yaml" is not valid YAML or JSON');
    const b = diff(["--base", fixture("base.yaml"), "--head", notOpenApi]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--head "package.json" is not an OpenAPI 3.x document');
  });
});

describe("a git ref as base", () => {
  let repo: string;
  const git = (...args: string[]) => {
    const result = spawnSync("git", ["-c", "user.email=test@example.invalid", "-c", "user.name=test", ...args], {
      cwd: repo,
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout;
  };

  beforeAll(() => {
    repo = mkdtempSync(path.join(tmpdir(), "diff-git-test-"));
    git("init", "-q");
    writeFileSync(path.join(repo, "README.md"), "no contract yet\n");
    git("add", ".");
    git("commit", "-q", "-m", "start without a contract");
    cpSync(path.join(repoRoot, "openapi"), path.join(repo, "openapi"), { recursive: true });
    cpSync(path.join(repoRoot, "redocly.yaml"), path.join(repo, "redocly.yaml"));
    git("add", ".");
    git("commit", "-q", "-m", "the contract");
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it("bundles the contract at the ref and compares it with the working tree", () => {
    const unchanged = diff(["--base", "HEAD"], repo);
    expect(unchanged.code).toBe(0);
    expect(unchanged.stdout).toContain("No changes to the contract.");
    expect(unchanged.stdout).toMatch(/base {2}git HEAD \([0-9a-f]+\): version 1\.0\.0, 15 operations, 6 webhooks/);

    const card = path.join(repo, "openapi", "components", "schemas", "cards", "Card.yaml");
    const original = readFileSync(card, "utf8");
    expect(original).toMatch(/\n {2}last4:\n/);
    writeFileSync(card, original.replace(/\n {2}last4:\n( {4}.*\n)+/, "\n"));
    const changed = diff(["--base", "HEAD"], repo);
    writeFileSync(card, original);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain("#/components/schemas/Card .last4: field `last4` removed");
    expect(changed.stdout).toContain("used by: GET /v1/cards");
  });

  it("says so when the ref has no contract", () => {
    const run = diff(["--base", "HEAD~1"], repo);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('git ref "HEAD~1" has no contract: openapi/openapi.yaml is not in that commit');
  });

  it("names a ref that does not exist", () => {
    const run = diff(["--base", "HEAD~5"], repo);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--base "HEAD~5" is neither a file nor a git ref');
  });
});
