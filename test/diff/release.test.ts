/**
 * `npm run release`: the bump it requires from the verdict, what it writes (package.json, CHANGELOG.md, the
 * baseline, the emptied acknowledged list), in a scratch copy of the repository, never the working tree; and
 * the same from a fresh git clone.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { JobFailure } from "partner-api-devkit/cli";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RELEASE_BASELINE } from "../../scripts/lib/diff/baseline.ts";
import { parseConfig } from "../../scripts/lib/diff/config.ts";
import { bundleWorkingTree } from "../../scripts/lib/diff/load.ts";
import { diffContracts } from "../../scripts/lib/diff/report.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { bumpVersion, refuseUnacknowledged, release, releaseCommand, requiredBump } from "../../scripts/release.ts";
import { runInProcess, runScript } from "../helpers/run.ts";

const quiet = { out: () => {}, err: () => {} };
const TODAY = "2026-11-22";

describe("bumps", () => {
  it("the verdict decides the smallest bump", () => {
    expect(requiredBump("breaking")).toBe("major");
    expect(requiredBump("compatible")).toBe("minor");
    expect(requiredBump("documentation")).toBe("patch");
    expect(requiredBump("none")).toBe("patch");
  });

  it("bumps x.y.z and refuses anything else", () => {
    expect(bumpVersion("0.1.0", "major")).toBe("1.0.0");
    expect(bumpVersion("1.4.2", "minor")).toBe("1.5.0");
    expect(bumpVersion("1.4.2", "patch")).toBe("1.4.3");
    expect(() => bumpVersion("1.4", "patch")).toThrow(/package.json version "1.4" is not x.y.z/);
  });
});

describe("the refusal", () => {
  const contract = (values: string[]) => ({
    document: {
      openapi: "3.1.0",
      info: { title: "Cards", version: "1.0.0" },
      paths: {
        "/cards": {
          get: {
            responses: {
              "200": {
                description: "Cards",
                content: { "application/json": { schema: { type: "string", enum: values } } },
              },
            },
          },
        },
      },
    },
    label: "contract",
  });

  it("names x-extensible-enum as a way out only for a response enum that grew", () => {
    const grown = diffContracts(contract(["employee"]), contract(["employee", "contractor"]));
    expect(() => refuseUnacknowledged(grown)).toThrow(
      /- response-enum-value-added GET \/cards response 200 application\/json: enum values added: `"contractor"`.*\nWays out: .*\n.*\n.*\n {2}For response-enum-value-added: list values that may grow under x-extensible-enum instead of enum\./s,
    );
    const config = parseConfig(
      'acknowledged:\n  - change: "response-enum-value-added GET /cards response 200 application/json"\n    reason: Contractors are new.',
      "test config",
    );
    expect(() =>
      refuseUnacknowledged(diffContracts(contract(["employee"]), contract(["employee", "contractor"]), { config })),
    ).not.toThrow();
    expect(() => refuseUnacknowledged(diffContracts(contract(["employee"]), contract(["employee"])))).not.toThrow();
  });
});

// Each bundles the contract and regenerates the types in a scratch copy (about 6 s of CPU for the five, load 5):
// npm run test:all runs them (docs/api-team.md, "The fast command and the whole set"); npm test keeps the bumps and the refusal's wording above.
/** The scratch copy of the repository, made by the describe's beforeAll, and how to read and edit it. */
let root: string;
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

const edit = (file: string, change: (text: string) => string) =>
  writeFileSync(path.join(root, file), change(read(file)));

/**
 * Makes the baseline equal the scratch copy's contract, so each test controls what changed. The baseline is
 * written first, so a change of the working tree since the last release (a removed field the team is about to
 * acknowledge) cannot make the set-up's own release refuse.
 */
async function settle() {
  const head = await bundleWorkingTree(root);
  writeFileSync(path.join(root, RELEASE_BASELINE), `${JSON.stringify(head.document, null, 2)}\n`);
  await release(root, "major", quiet, { today: TODAY });
  // One version for the package and the contract: both back to 1.0.0.
  edit("package.json", (text) => text.replace(/"version": "[^"]*"/, '"version": "1.0.0"'));
  edit("openapi/openapi.yaml", (text) => text.replace(/^( {2}version: ).*$/m, "$11.0.0"));
  writeFileSync(path.join(root, "CHANGELOG.md"), "# Changelog\n\n## 1.0.0 (2026-01-01)\n\nFirst.\n");
}

/** Which bump a change needs, and what a release writes. */
function bumpsInScratch(): void {
  it("a compatible change needs a minor release: patch is refused, minor writes everything", async () => {
    await settle();
    edit("openapi/components/schemas/cards/Card.yaml", (text) =>
      text.replace("properties:\n", "properties:\n  nickname:\n    type: string\n"),
    );
    await expect(release(root, "patch", quiet, { today: TODAY })).rejects.toThrow(
      /a patch release is too small: the changes since the last release are compatible .* which needs a minor release/,
    );
    expect(read("package.json")).toContain('"version": "1.0.0"');

    const result = await release(root, undefined, quiet, { today: TODAY });
    expect(result).toMatchObject({ version: "1.1.0", bump: "minor", verdict: "compatible" });
    expect(read("package.json")).toContain('"version": "1.1.0"');
    const changelog = read("CHANGELOG.md");
    expect(changelog).toMatch(/^# Changelog\n\n## 1\.1\.0 \(2026-11-22\)\n\nNothing to do before you upgrade/);
    expect(changelog).toContain(
      "- **No action needed:** The field `nickname` is new: answers may carry it. Nothing to do.\n" +
        "  <!-- response-field-added-optional at #/components/schemas/Card .nickname -->",
    );
    expect(changelog).toContain("## 1.0.0 (2026-01-01)\n\nFirst.");
    const baseline = JSON.parse(read(RELEASE_BASELINE));
    expect(baseline.components.schemas.Card.properties.nickname).toEqual({ type: "string" });

    // Released: nothing changed since, so the next release is a patch.
    const next = await release(root, undefined, quiet, { today: TODAY, dryRun: true });
    expect(next).toMatchObject({ version: "1.1.1", verdict: "none" });
  });

  it("a breaking change needs a major release and empties the acknowledged list", async () => {
    await settle();
    edit("openapi/components/schemas/cards/Card.yaml", (text) =>
      text.replace(/\n {2}brand:\n {4}type: string\n/, "\n  brand:\n    type: integer\n"),
    );
    edit("openapi-changes.allow.yaml", (text) =>
      text.replace(
        "acknowledged: []",
        'acknowledged:\n  - change: "response-type-changed #/components/schemas/Card .brand"\n    reason: Brands are numbered now.',
      ),
    );
    await expect(release(root, "minor", quiet, { today: TODAY })).rejects.toThrow(/needs a major release/);
    const result = await release(root, "major", quiet, { today: TODAY });
    expect(result.version).toBe("2.0.0");
    expect(read("CHANGELOG.md")).toContain(
      "- **Action needed:** The field `brand` is now a whole number (was text). Update the code that reads the answer before you upgrade.",
    );
    expect(read("CHANGELOG.md")).toContain("<!-- response-type-changed at #/components/schemas/Card .brand -->");
    expect(read("CHANGELOG.md")).toContain("Why: Brands are numbered now.");
    expect(read("openapi-changes.allow.yaml")).toContain("acknowledged: []");
    expect(read("openapi-changes.allow.yaml")).toContain("# The contract gate's configuration");
  });

  it("a removed response field: --dry-run refuses it unacknowledged, proposes a major once acknowledged", async () => {
    await settle();
    edit("openapi/components/schemas/transactions/Transaction.yaml", (text) =>
      text.replace(/\n {2}counterpartyBankCode:\n {4}type: string\n {4}description: May be an empty string\.\n/, "\n"),
    );
    const key = "response-optional-field-removed #/components/schemas/Transaction .counterpartyBankCode";
    const refused: Error = await release(root, undefined, quiet, { today: TODAY, dryRun: true }).catch((e) => e);
    expect(refused).toBeInstanceOf(JobFailure);
    expect(refused.message).toContain(`- ${key}: optional field \`counterpartyBankCode\` removed`);
    edit("openapi-changes.allow.yaml", (text) =>
      text.replace("acknowledged: []", `acknowledged:\n  - change: "${key}"\n    reason: Never filled in.`),
    );
    const proposed = await release(root, undefined, quiet, { today: TODAY, dryRun: true });
    expect(proposed).toMatchObject({ bump: "major", version: "2.0.0", verdict: "breaking" });
    await release(root, undefined, quiet, { today: TODAY });
    const changelog = read("CHANGELOG.md");
    expect(changelog).toMatch(
      /^# Changelog\n\n## 2\.0\.0 \(2026-11-22\)\n\n\*\*1 change needs action\*\* before you upgrade/,
    );
    expect(changelog).toContain("`getTransaction` (GET /transactions/{transactionId})");
    expect(changelog).toMatch(/- \*\*Action needed:\*\* [^\n]*`counterpartyBankCode`[^\n]*no longer/);
  });
}

/** What a release refuses, and the devkit's version. */
function refusalsInScratch(): void {
  it("refuses while a breaking change is neither acknowledged nor undone, naming it and the ways out", async () => {
    await settle();
    const before = ["package.json", "CHANGELOG.md", RELEASE_BASELINE].map(read);
    edit("openapi/components/schemas/cards/Card.yaml", (text) =>
      text.replace(/\n {2}brand:\n {4}type: string\n/, "\n  brand:\n    type: integer\n"),
    );
    for (const dryRun of [true, false]) {
      const refused: Error = await release(root, "major", quiet, { today: TODAY, dryRun }).catch((error) => error);
      expect(refused).toBeInstanceOf(JobFailure);
      expect(refused.message).toMatch(
        /^release refused: 1 change\(s\) at level error since the last release are neither acknowledged nor undone:\n {2}- response-type-changed #\/components\/schemas\/Card \.brand: type string → integer\n/,
      );
      expect(refused.message).toMatch(
        /Ways out: undo the change in openapi\/;\n {2}acknowledge it in openapi-changes\.allow\.yaml .*\n {2}or lower its check's level in openapi-changes\.allow\.yaml \(levels: \{ response-type-changed: warning \}\)/,
      );
      expect(refused.message).not.toContain("x-extensible-enum");
    }
    // Nothing written: the change stays outside the baseline, so the gate keeps seeing it.
    expect(["package.json", "CHANGELOG.md", RELEASE_BASELINE].map(read)).toEqual(before);

    // A level lowered in the config is a way out (the change is then compatible: a minor release).
    edit("openapi-changes.allow.yaml", (text) =>
      text.replace("levels: {}", "levels:\n  response-type-changed: warning"),
    );
    await expect(release(root, undefined, quiet, { today: TODAY, dryRun: true })).resolves.toMatchObject({
      bump: "minor",
      verdict: "compatible",
    });
  });

  it("gives the devkit the released version and keeps its peer dependency on the client at it", async () => {
    await settle();
    mkdirSync(path.join(root, "devkit"));
    cpSync(path.join(repoRoot, "devkit", "package.json"), path.join(root, "devkit", "package.json"));
    const devkitBefore = JSON.parse(read("devkit/package.json"));
    const result = await release(root, "minor", quiet, { today: TODAY });
    expect(result.version).toBe("1.1.0");
    expect(result.written).toContain("devkit/package.json");
    const devkit = JSON.parse(read("devkit/package.json"));
    // The client's peer moves to the release; any other peer (MSW, optional) is left as it was.
    expect(devkit.peerDependencies).toEqual({ ...devkitBefore.peerDependencies, "partner-api-client": "1.1.0" });
    expect(devkit.version).toBe("1.1.0");
    // Only the version and the peer dependency move: the rest, its workspace link included, stays.
    expect({ ...devkit, version: devkitBefore.version, peerDependencies: devkitBefore.peerDependencies }).toEqual(
      devkitBefore,
    );
  });

  it("--dry-run writes nothing; a bad bump exits 2", async () => {
    const before = read("package.json");
    const bad = await runInProcess(releaseCommand, ["huge"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('the bump must be one of patch, minor, major, got "huge"');
    await release(root, "major", quiet, { today: TODAY, dryRun: true });
    expect(read("package.json")).toBe(before);
  });
}

describe("a release in a scratch copy", { tags: ["slow"] }, () => {
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "release-test-"));
    for (const entry of [
      "openapi",
      "redocly.yaml",
      "package.json",
      "CHANGELOG.md",
      "release",
      "openapi-changes.allow.yaml",
    ])
      cpSync(path.join(repoRoot, entry), path.join(root, entry), { recursive: true });
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  bumpsInScratch();
  refusalsInScratch();
});

describe("from a clean clone", () => {
  it("npm run release -- --dry-run works in a fresh clone of the repository", { tags: ["slow"] }, () => {
    const clone = mkdtempSync(path.join(tmpdir(), "release-clone-"));
    try {
      const cloned = spawnSync("git", ["clone", "--quiet", repoRoot, clone], { encoding: "utf8" });
      expect(cloned.status, cloned.stderr).toBe(0);
      const run = runScript("release.ts", ["major", "--dry-run"], { cwd: clone });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(`would write package.json, CHANGELOG.md, ${RELEASE_BASELINE}`);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});
