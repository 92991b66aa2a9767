/**
 * Whole releases in temporary git repositories: one version for the package and the contract, the released
 * contracts kept under release/versions/, the bundle following the contract, and the commit and tag.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundleContract } from "../../scripts/lib/bundle.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { contractVersionOf, releasedContracts, withContractVersion } from "../../scripts/lib/release/versions.ts";
import { release, releaseCommand } from "../../scripts/release.ts";
import { runInProcess } from "../helpers/run.ts";

const quiet = { out: () => {}, err: () => {} };

/** The temporary git repository, made by the describe's beforeAll, and how to read and change it. */
let root: string;
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

const git = (...args: string[]) => {
  const result = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  expect(result.status, `git ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result.stdout.trim();
};

function addField() {
  const file = path.join(root, "openapi/components/schemas/cards/Card.yaml");
  writeFileSync(
    file,
    readFileSync(file, "utf8").replace("properties:\n", "properties:\n  nickname:\n    type: string\n"),
  );
  git("commit", "--quiet", "-am", "Card nickname");
}

/** What a release writes, commits and tags. */
function releaseWrites(): void {
  it("gives package and contract one version, keeps the contract, commits and tags the release", async () => {
    addField();
    const result = await release(root, undefined, quiet, { today: "2026-11-26", tag: true });
    expect(result).toMatchObject({ version: "0.2.0", bump: "minor", tag: "v0.2.0" });
    expect(JSON.parse(read("package.json")).version).toBe("0.2.0");
    expect(contractVersionOf(read("openapi/openapi.yaml"))).toBe("0.2.0");
    // npm's lock names the version too: the package's, and the devkit's peer dependency on it.
    const lock = JSON.parse(read("package-lock.json"));
    expect([
      lock.version,
      lock.packages[""].version,
      lock.packages.devkit.peerDependencies["partner-api-client"],
    ]).toEqual(["0.2.0", "0.2.0", "0.2.0"]);
    // The committed bundle follows the contract: what `npm run bundle -- --check` compares.
    const fresh = await bundleContract(path.join(root, "openapi/openapi.yaml"), path.join(root, "redocly.yaml"));
    expect(read("generated/openapi.json")).toBe(fresh.json);
    expect(read("generated/openapi.yaml")).toBe(fresh.yaml);
    expect(JSON.parse(read("release/openapi.json")).info.version).toBe("0.2.0");
    expect(read("release/versions/0.2.0.json")).toBe(read("release/openapi.json"));
    expect((await releasedContracts(root)).map((contract) => contract.version)).toEqual(["0.2.0", "0.1.0"]);
    expect(read("CHANGELOG.md")).toContain("## 0.2.0 (2026-11-26)");
    // Everything the release wrote is in the tagged commit; nothing is left over.
    expect(git("status", "--porcelain")).toBe("");
    expect(git("log", "-1", "--format=%s")).toBe("Release 0.2.0");
    expect(git("rev-parse", "v0.2.0^{commit}")).toBe(git("rev-parse", "HEAD"));
    expect(git("cat-file", "-t", "v0.2.0")).toBe("tag");
    expect(git("show", "v0.2.0:release/versions/0.2.0.json")).toBe(read("release/versions/0.2.0.json").trimEnd());
  });
}

/** What it refuses, and tagging outside a work tree. */
function refusals(): void {
  it("refuses a working tree with uncommitted changes, and a tag that exists, writing nothing", async () => {
    addField();
    const file = path.join(root, "openapi/components/schemas/cards/Card.yaml");
    writeFileSync(file, `${readFileSync(file, "utf8")}# edited\n`);
    const before = read("package.json");
    await expect(release(root, undefined, quiet, { today: "2026-11-26", tag: true })).rejects.toThrow(
      /uncommitted changes, so the tag would not name what was released:\n M openapi\/components\/schemas\/cards\/Card\.yaml/,
    );
    expect(read("package.json")).toBe(before);
    git("checkout", "--", ".");
    git("tag", "v0.2.0");
    await expect(release(root, undefined, quiet, { today: "2026-11-26", tag: true })).rejects.toThrow(
      /the tag v0\.2\.0 exists already/,
    );
    expect(read("package.json")).toBe(before);
    expect(existsSync(path.join(root, "release/versions/0.2.0.json"))).toBe(false);
  });

  it("the command tags by default, and says to use --no-tag outside a git work tree", async () => {
    const outside = mkdtempSync(path.join(tmpdir(), "release-nogit-"));
    const cwd = process.cwd();
    try {
      for (const entry of [
        "openapi",
        "redocly.yaml",
        "package.json",
        "CHANGELOG.md",
        "release",
        "openapi-changes.allow.yaml",
      ])
        cpSync(path.join(root, entry), path.join(outside, entry), { recursive: true });
      process.chdir(outside);
      const refused = await runInProcess(releaseCommand, ["minor"]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("is not a git work tree: release with --no-tag");
      const untagged = await runInProcess(releaseCommand, ["minor", "--no-tag"]);
      expect(untagged.code, untagged.stderr).toBe(0);
      expect(untagged.stdout).not.toContain("tagged");
      expect(JSON.parse(readFileSync(path.join(outside, "package.json"), "utf8")).version).toBe("0.2.0");
    } finally {
      process.chdir(cwd);
      rmSync(outside, { recursive: true, force: true });
    }
  });
}

describe("a release in a temporary git repository", () => {
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "release-tag-"));
    for (const entry of [
      "openapi",
      "redocly.yaml",
      "package.json",
      "package-lock.json",
      "CHANGELOG.md",
      "release",
      "openapi-changes.allow.yaml",
      "generated/openapi.json",
      "generated/openapi.yaml",
    ])
      cpSync(path.join(repoRoot, entry), path.join(root, entry), { recursive: true });
    // The state after release 0.1.0: the package and the contract at one version.
    writeFileSync(
      path.join(root, "package.json"),
      read("package.json").replace(/"version": "[^"]*"/, '"version": "0.1.0"'),
    );
    writeFileSync(path.join(root, "openapi/openapi.yaml"), withContractVersion(read("openapi/openapi.yaml"), "0.1.0"));
    // Released as it stands today: nothing unreleased and nothing acknowledged, whatever main carries since 0.1.0.
    const released = JSON.parse(read("generated/openapi.json")) as { info: { version: string } };
    released.info.version = "0.1.0";
    for (const file of ["release/openapi.json", "release/versions/0.1.0.json"])
      writeFileSync(path.join(root, file), `${JSON.stringify(released, null, 2)}\n`);
    writeFileSync(path.join(root, "openapi-changes.allow.yaml"), "levels: {}\nacknowledged: []\n");
    git("init", "--quiet");
    git("config", "user.email", "release@test.invalid");
    git("config", "user.name", "Release test");
    git("add", ".");
    git("commit", "--quiet", "-m", "Before the release");
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  releaseWrites();
  refusals();
});
