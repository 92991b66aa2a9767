/**
 * Each pull request judged on its own change: `--merge-base <ref>` compares with where the branch left its target,
 * so a change merged into the target meanwhile is not the branch's; an informational line says what is unreleased
 * since the last release; `--format github` annotations carry the split file and line of each change.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffCommand, unreleasedLine } from "../../scripts/diff.ts";
import { diffContracts, markdownHeading } from "../../scripts/lib/diff/report.ts";
import { sourceLines } from "../../scripts/lib/diff/source-lines.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { gitIn } from "../helpers/git.ts";
import { runInDirectory } from "../helpers/run.ts";

const TRANSACTION = "openapi/components/schemas/transactions/Transaction.yaml";
const CARD = "openapi/components/schemas/cards/Card.yaml";

describe("sourceLines: a printed location → the split file and line", () => {
  const lines = sourceLines(repoRoot);
  const lineOf = (file: string, pattern: RegExp) =>
    readFileSync(path.join(repoRoot, file), "utf8")
      .split("\n")
      .findIndex((line) => pattern.test(line)) + 1;

  it("a component's field: the component's own file, the field's line", () => {
    expect(lines("#/components/schemas/Transaction .counterpartyBankCode")).toEqual({
      file: TRANSACTION,
      line: lineOf(TRANSACTION, /^ {2}counterpartyBankCode:/),
    });
  });

  it("an operation's response and a webhook: the file the root maps them to", () => {
    const cards = "openapi/paths/cards/v1_cards.yaml";
    expect(lines("POST /v1/cards response 201")).toEqual({ file: cards, line: lineOf(cards, /^ {4}'?201'?:/) });
    const webhook = lines("webhook payment_route.created POST");
    expect(webhook?.file).toBe("openapi/webhooks/payment_route.created.yaml");
    expect(webhook?.line).toBe(lineOf(webhook!.file, /^post:/));
  });

  it("what it cannot place is left unplaced, never guessed", () => {
    expect(lines("#/components/schemas/NoSuchSchema .x")).toBeUndefined();
    expect(lines("DELETE /v1/nowhere")).toBeUndefined();
  });
});

describe("the markdown report's header", () => {
  it("names both versions, or says the head is not released yet when it carries the base's number", () => {
    const summary = (version: string) => ({ label: "x", version, operations: 1, webhooks: 0 });
    expect(markdownHeading({ base: summary("0.1.0"), head: summary("0.2.0") })).toBe("## API changes: 0.1.0 → 0.2.0");
    expect(markdownHeading({ base: summary("0.1.0"), head: summary("0.1.0") })).toBe(
      "## API changes since 0.1.0 (unreleased)",
    );
  });
});

describe("the unreleased line", () => {
  it("says what the release will carry and that this run does not fail on it", () => {
    const base = { document: { openapi: "3.1.0", info: { title: "t", version: "2.0.0" }, paths: {} }, label: "b" };
    const head = {
      document: {
        openapi: "3.1.0",
        info: { title: "t", version: "2.0.0" },
        paths: { "/x": { get: { responses: { "200": { description: "ok" } } } } },
      },
      label: "h",
    };
    const line = unreleasedLine(diffContracts(base as never, head as never));
    expect(line).toMatch(/^unreleased since the last release \(2\.0\.0, release\/openapi\.json\): 1 changes: 0 error/);
    expect(line).toContain("this run does not fail on it");
  });
});

// A git repository of the contract, then the gate run five times in it: git, tar and two bundles a run (about 2 s
// of CPU and a second of waiting): npm run test:all runs it.
describe("--merge-base: a pull request's own change", { tags: ["slow"] }, () => {
  let repo: string;
  const git = (...args: string[]) => gitIn(repo, ...args);
  const edit = (file: string, from: RegExp, to: string) => {
    const full = path.join(repo, file);
    const text = readFileSync(full, "utf8");
    expect(text).toMatch(from);
    writeFileSync(full, text.replace(from, to));
  };

  beforeAll(() => {
    repo = mkdtempSync(path.join(tmpdir(), "diff-merge-base-"));
    git("init", "-q", "-b", "main");
    cpSync(path.join(repoRoot, "openapi"), path.join(repo, "openapi"), { recursive: true });
    cpSync(path.join(repoRoot, "redocly.yaml"), path.join(repo, "redocly.yaml"));
    mkdirSync(path.join(repo, "release"));
    cpSync(path.join(repoRoot, "release", "openapi.json"), path.join(repo, "release", "openapi.json"));
    git("add", ".");
    git("commit", "-q", "-m", "the contract");
    // The pull request: a documented response field removed.
    git("checkout", "-q", "-b", "pr");
    edit(
      TRANSACTION,
      /\n {2}counterpartyBankCode:\n {4}type: string\n {4}description: May be an empty string\.\n/,
      "\n",
    );
    git("commit", "-q", "-am", "drop counterpartyBankCode");
    // Meanwhile on main: another change the pull request did not make.
    git("checkout", "-q", "main");
    edit(CARD, /\n {2}brand:\n {4}type: string\n/, "\n  brand:\n    type: string\n  nickname:\n    type: string\n");
    git("commit", "-q", "-am", "add nickname");
    git("checkout", "-q", "pr");
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it("fails on the branch's own change only, annotated on its YAML (a removed field: the list it was in), with the unreleased line beside", async () => {
    const run = await runInDirectory(repo, diffCommand, ["--merge-base", "main", "--format", "github"]);
    expect(run.code, run.stderr).toBe(1);
    const annotations = run.stdout.split("\n").filter((line) => line.startsWith("::"));
    const line =
      readFileSync(path.join(repo, TRANSACTION), "utf8")
        .split("\n")
        .findIndex((text) => /^properties:/.test(text)) + 1;
    expect(annotations[0]).toBe(
      `::error file=${TRANSACTION},line=${line},title=response-optional-field-removed::#/components/schemas/Transaction .counterpartyBankCode: optional field \`counterpartyBankCode\` removed`,
    );
    // main's nickname is not this branch's change (compared with main itself, it would read as removed).
    expect(run.stdout).not.toContain("nickname");
    expect(annotations.at(-1)).toMatch(
      /^::notice title=Unreleased since the last release::unreleased since the last release \([\d.]+, release\/openapi\.json\): \d+ changes: [1-9]\d* error/,
    );
    expect(run.stderr).toMatch(/compared merge-base of HEAD and main, git [0-9a-f]+:openapi\/openapi\.yaml/);
  });

  it("calls an acknowledgement stale only when nothing since the release matches it either", async () => {
    // Where the branch left its target, a field was already removed and acknowledged (unreleased): its entry is
    // still needed by the release, though this branch's own change does not match it.
    git("checkout", "-q", "-b", "acknowledged-base", "pr~1");
    edit(TRANSACTION, /\n {2}counterpartyCode:\n {4}type: string\n {4}description: May be an empty string\.\n/, "\n");
    git("commit", "-q", "-am", "drop counterpartyCode");
    git("checkout", "-q", "-b", "acknowledged-pr");
    edit(TRANSACTION, /\n {2}counterpartyName:\n {4}type: string\n/, "\n");
    git("commit", "-q", "-am", "drop counterpartyName");
    const entry = (field: string) => [
      `  - change: "response-optional-field-removed #/components/schemas/Transaction .${field}"`,
      "    reason: Test.",
    ];
    const allow = path.join(repo, "openapi-changes.allow.yaml");
    writeFileSync(
      allow,
      [
        "acknowledged:",
        ...entry("counterpartyName"),
        ...entry("counterpartyCode"),
        '  - change: "path-removed /gone"',
        "    reason: Left over.",
      ].join("\n"),
    );
    try {
      const run = await runInDirectory(repo, diffCommand, ["--merge-base", "acknowledged-base"]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("[acknowledged] #/components/schemas/Transaction .counterpartyName");
      const notes = (stdout: string) => stdout.split("\n").filter((line) => line.startsWith("note: "));
      expect(notes(run.stdout)).toEqual([
        'note: acknowledged entry "path-removed /gone" matches no failing change; remove it',
      ]);
      // Against the release itself, the same entries: the unused one alone is named again.
      const released = await runInDirectory(repo, diffCommand, []);
      expect(notes(released.stdout)).toEqual(notes(run.stdout));
    } finally {
      rmSync(allow);
      git("checkout", "-q", "pr");
    }
  });

  it("refuses a ref that is not one, and --base with --merge-base, as bad input", async () => {
    const unknown = await runInDirectory(repo, diffCommand, ["--merge-base", "no-such-branch"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--merge-base "no-such-branch" is not a git ref of this repository');
    const both = await runInDirectory(repo, diffCommand, ["--merge-base", "main", "--base", "HEAD"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("give --base or --merge-base, not both");
  });
});
