/**
 * `npm run diff` through the one runner: exit codes (0 pass, 1 failed threshold, 2 bad input, never 1 for a
 * crash), the four formats, --list-checks, --fail-on, the config file, documents it must accept (3.0, split,
 * components only, empty paths, a self-referencing allOf), and git refs (a ref, and <ref>:<file>).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffCommand, formatChecks } from "../../scripts/diff.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { gitIn } from "../helpers/git.ts";
import { runInProcess, runScript } from "../helpers/run.ts";

const fixture = (name: string) => path.join(repoRoot, "test", "diff", "fixtures", name);
const diff = (args: string[]) => runInProcess(diffCommand, args);

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), "diff-cli-test-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** What fails the gate and what passes, in each output format. */
function failsAndPasses(): void {
  it("fails (exit 1) on a removed required response field, naming it and its check", async () => {
    const run = await diff(["--base", fixture("base.yaml"), "--head", fixture("head-add-required-request-field.yaml")]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[FAILS] #/components/schemas/CreateWidgetRequest .size: required field `size` added");
    expect(run.stdout).toContain("check: request-field-added-required");
    expect(run.stdout).toContain("used by: POST /widgets");
    expect(run.stderr).toContain("FAILED: compared file");
  });

  it("fails on a dropped webhook", async () => {
    const run = await diff(["--base", fixture("base.yaml"), "--head", fixture("head-drop-webhook.yaml")]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("check: webhook-removed");
  });

  it("reads a webhook payload in the receiver's direction: a removed field is a response change", async () => {
    const run = await diff([
      "--base",
      fixture("base.yaml"),
      "--head",
      fixture("head-remove-response-field.yaml"),
      "--format",
      "json",
    ]);
    const changes = JSON.parse(run.stdout) as { id: string; level: string; usedBy: string[] }[];
    const removed = changes.find((change) => change.id === "response-optional-field-removed");
    expect(removed?.usedBy).toEqual(expect.arrayContaining(["GET /widgets/{widgetId}", "webhook widget.created POST"]));
    // Partners read every documented response field (none is marked required): removing one fails the gate.
    expect(removed?.level).toBe("error");
    expect(run.code).toBe(1);
  });

  it("passes an optional field, with a Markdown changelog line", async () => {
    const run = await diff([
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
    expect(run.stderr).toMatch(/verdict: compatible in \d/);
  });

  it("prints one JSON object per change with id, level, location and message", async () => {
    const run = await diff([
      "--base",
      fixture("base.yaml"),
      "--head",
      fixture("head-docs-only.yaml"),
      "--format",
      "json",
    ]);
    expect(run.code).toBe(0);
    const changes = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(changes.length).toBe(2);
    for (const change of changes) {
      expect(change).toMatchObject({ id: expect.any(String), level: "info", location: expect.any(String) });
      expect(change.message).toMatch(/changed/);
    }
  });

  it("prints GitHub workflow annotations", async () => {
    const run = await diff([
      "--base",
      fixture("base.yaml"),
      "--head",
      fixture("head-drop-webhook.yaml"),
      "--format",
      "github",
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error title=webhook-removed::webhook widget\.created/m);
  });
}

/** --fail-on and the config file. */
function levelsAndConfig(): void {
  it("--fail-on warning fails on a warning that passes by default", async () => {
    const head = path.join(scratch, "renamed-operation.yaml");
    writeFileSync(
      head,
      readFileSync(fixture("base.yaml"), "utf8").replace("operationId: getWidget", "operationId: readWidget"),
    );
    const lenient = await diff(["--base", fixture("base.yaml"), "--head", head]);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain("check: operation-id-changed");
    const strict = await diff(["--base", fixture("base.yaml"), "--head", head, "--fail-on", "warning"]);
    expect(strict.code).toBe(1);
  });

  it("a config file changes a check's level and acknowledges a failing change with a reason", async () => {
    const config = path.join(scratch, "gate.yaml");
    writeFileSync(
      config,
      [
        "levels:",
        "  operation-id-changed: error",
        "acknowledged:",
        '  - change: "webhook-removed webhook widget.created POST"',
        "    reason: No partner subscribed to it.",
        '  - change: "path-removed /gone"',
        "    reason: Left over.",
      ].join("\n"),
    );
    const run = await diff([
      "--base",
      fixture("base.yaml"),
      "--head",
      fixture("head-drop-webhook.yaml"),
      "--config",
      config,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("[acknowledged] webhook widget.created");
    expect(run.stdout).toContain('note: acknowledged entry "path-removed /gone" matches no failing change');
  });
}

/** The list of checks and the oasdiff profile. */
function checkLists(): void {
  it("lists every check with its level, family and detector", async () => {
    const run = await diff(["--list-checks"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(formatChecks());
    expect(run.stdout).toMatch(
      /^request-field-added-required +error +properties +scripts\/lib\/diff\/checks\/properties\.ts#fields$/m,
    );
    expect(run.stdout).toMatch(/^response-field-added-required +info /m);
    expect(run.stdout).toMatch(
      /^response-enum-value-added +error +enums +scripts\/lib\/diff\/checks\/enums\.ts#enumValues$/m,
    );
  });

  it("lists every check as JSON objects with id, level, family and detector", async () => {
    const run = await diff(["--list-checks", "--format", "json"]);
    expect(run.code).toBe(0);
    const checks = JSON.parse(run.stdout) as { id: string; level: string; family: string; detector: string }[];
    expect(checks.length).toBeGreaterThan(150);
    expect(checks).toContainEqual(
      expect.objectContaining({
        id: "request-pattern-changed",
        level: "error",
        family: "schema keywords",
        detector: "scripts/lib/diff/checks/schema-keywords/patterns.ts#patterns",
      }),
    );
    for (const check of checks) expect(existsSync(path.join(repoRoot, check.detector.split("#")[0]!))).toBe(true);
  });

  it("judges with oasdiff's levels under --profile oasdiff (an operationId renamed: our warning, oasdiff's info)", async () => {
    const args = [
      "--base",
      fixture("base.yaml"),
      "--head",
      fixture("head-rename-operation-id.yaml"),
      "--fail-on",
      "warning",
    ];
    const ours = await diff(args);
    expect(ours.code).toBe(1);
    expect(ours.stdout).toContain("check: operation-id-changed");
    const theirs = await diff([...args, "--profile", "oasdiff"]);
    expect(theirs.code).toBe(0);
    expect(theirs.stdout).toMatch(/Info \(1\)\n {2}- GET \/widgets\/\{widgetId\}: operationId/);
  });

  it("lists oasdiff's levels under --profile oasdiff", async () => {
    const run = await diff(["--list-checks", "--profile", "oasdiff", "--format", "json"]);
    const checks = JSON.parse(run.stdout) as { id: string; level: string }[];
    expect(checks.find((check) => check.id === "request-pattern-changed")?.level).toBe("warning");
    expect(checks.find((check) => check.id === "operation-id-changed")?.level).toBe("info");
  });

  it("refuses an unknown profile, naming it", async () => {
    const run = await diff(["--list-checks", "--profile", "strict"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--profile must be one of default, oasdiff, got "strict"');
  });
}

describe("the gate on files", () => {
  failsAndPasses();
  levelsAndConfig();
  checkLists();
});

describe("documents it must accept", () => {
  it.each([
    ["a components-only document", "components-only.yaml", "components-only.yaml"],
    ["an empty paths map (OpenAPI 3.0)", "empty-paths.yaml", "empty-paths.yaml"],
    ["a self-referencing allOf", "self-allof.yaml", "self-allof-head.yaml"],
  ])("%s", async (_name, base, head) => {
    const run = await diff(["--base", fixture(base), "--head", fixture(head)]);
    expect(run.code, run.stderr).toBe(0);
  });

  it("a components-only base against a contract with paths: every path is new", async () => {
    const run = await diff([
      "--base",
      fixture("components-only.yaml"),
      "--head",
      fixture("base.yaml"),
      "--format",
      "json",
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).map((c: { id: string }) => c.id)).toContain("path-added");
  });

  it("bundles a split OpenAPI 3.0 document (its nullable is understood)", async () => {
    const split = path.join(scratch, "split");
    cpSync(fixture("split"), split, { recursive: true });
    const pet = path.join(split, "schemas", "Pet.yaml");
    writeFileSync(pet, readFileSync(pet, "utf8").replace("nullable: true", "nullable: false"));
    const run = await diff(["--base", fixture("split/openapi.yaml"), "--head", path.join(split, "openapi.yaml")]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("null no longer allowed");
    expect(run.stdout).toContain("check: response-nullable-removed");
  });
});

describe("bad input exits 2 with a message naming it", () => {
  it.each([
    [
      ["--base", fixture("base.yaml"), "--format", "html"],
      '--format must be one of text, markdown, json, github, got "html"',
    ],
    [["--base", fixture("base.yaml"), "--fail-on", "fatal"], "--fail-on must be one of error, warning, info"],
    [["--base", "no-such-ref-or-file"], '--base "no-such-ref-or-file" is neither a file nor a git ref'],
    [
      ["--base", fixture("base.yaml"), "--head", "missing.yaml"],
      '--head "missing.yaml" is neither a file nor a git ref',
    ],
    [
      ["--base", fixture("base.yaml"), "--config", "missing-config.yaml"],
      'config "missing-config.yaml" cannot be read',
    ],
    [["--base", fixture("base.yaml"), "--colour", "red"], "Unknown option '--colour'"],
  ])("%j", async (args, message) => {
    const run = await diff(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it("names an unparseable file, a Swagger 2.0 file, a dangling $ref and an unknown check in the config", async () => {
    const write = (name: string, text: string) => {
      const file = path.join(scratch, name);
      writeFileSync(file, text);
      return file;
    };
    const broken = write("broken.yaml", "openapi: [3.1.0\n");
    const swagger = write("swagger.yaml", 'swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {}\n');
    const dangling = write(
      "dangling.yaml",
      readFileSync(fixture("base.yaml"), "utf8").replace("schemas/Widget'", "schemas/Gadget'"),
    );
    const config = write("bad-config.yaml", "levels:\n  no-such-check: error\n");
    const cases: [string[], string][] = [
      [["--base", broken, "--head", fixture("base.yaml")], '--base "broken.yaml" is not valid YAML or JSON'],
      [["--base", swagger, "--head", fixture("base.yaml")], "is Swagger 2.0; give an OpenAPI 3.0 or 3.1 document"],
      [
        ["--base", fixture("base.yaml"), "--head", dangling],
        'has a $ref that does not resolve: "#/components/schemas/Gadget"',
      ],
      [
        ["--base", fixture("base.yaml"), "--head", fixture("base.yaml"), "--config", config],
        'no check "no-such-check"',
      ],
    ];
    for (const [args, message] of cases) {
      const run = await diff(args);
      expect(run.code, message).toBe(2);
      expect(run.stderr).toContain(message);
    }
  });
});

describe("git refs", () => {
  let repo: string;
  const git = (...args: string[]) => gitIn(repo, ...args);

  beforeAll(() => {
    repo = mkdtempSync(path.join(tmpdir(), "diff-git-test-"));
    git("init", "-q");
    cpSync(path.join(repoRoot, "openapi"), path.join(repo, "openapi"), { recursive: true });
    cpSync(path.join(repoRoot, "redocly.yaml"), path.join(repo, "redocly.yaml"));
    cpSync(fixture("base.yaml"), path.join(repo, "widgets.yaml"));
    git("add", ".");
    git("commit", "-q", "-m", "the contract");
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it("a ref alone is this repository's split contract at that commit, compared with the working tree", () => {
    const card = path.join(repo, "openapi", "components", "schemas", "cards", "Card.yaml");
    const original = readFileSync(card, "utf8");
    expect(original).toMatch(/\n {2}brand:\n {4}type: string\n/);
    writeFileSync(card, original.replace(/\n {2}brand:\n {4}type: string\n/, "\n  brand:\n    type: integer\n"));
    const changed = runScript("diff.ts", ["--base", "HEAD"], { cwd: repo });
    writeFileSync(card, original);
    expect(changed.status, changed.stderr).toBe(1);
    expect(changed.stdout).toContain("#/components/schemas/Card .brand: type string → integer");
    expect(changed.stdout).toContain("check: response-type-changed");
    expect(changed.stdout).toMatch(/base {2}git HEAD:openapi\/openapi\.yaml \([0-9a-f]+\)/);
  });

  it("<ref>:<file> reads that file at the ref", () => {
    writeFileSync(path.join(repo, "widgets-head.yaml"), readFileSync(fixture("head-drop-webhook.yaml"), "utf8"));
    const run = runScript("diff.ts", ["--base", "HEAD:widgets.yaml", "--head", "widgets-head.yaml"], { cwd: repo });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toContain("check: webhook-removed");
    const missing = runScript("diff.ts", ["--base", "HEAD:nope.yaml", "--head", "widgets-head.yaml"], { cwd: repo });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("nope.yaml is not in commit HEAD");
  });
});
