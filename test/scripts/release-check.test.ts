/**
 * The release workflow's version check (scripts/release-check.ts) on copies of this repository's version files:
 * a tag agreeing with both packages and the contract passes, each one that disagrees is named, a bad tag is bad input.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { withContractVersion } from "../../scripts/lib/release/versions.ts";
import {
  CHECKED_VERSIONS,
  releaseCheckCommand,
  releaseMismatches,
  VERSION_SOURCES,
  versionOfTag,
} from "../../scripts/release-check.ts";
import { runInProcess } from "../helpers/run.ts";

/** The version the copies are given, as `npm run release` would have left them. */
const version = "1.4.0";

describe("npm run release:check", () => {
  let root: string;
  const file = (name: string) => path.join(root, name);
  const edit = (name: string, change: (text: string) => string) =>
    writeFileSync(file(name), change(readFileSync(file(name), "utf8")));

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "release-check-"));
    for (const name of new Set(VERSION_SOURCES.map((source) => source.file))) {
      mkdirSync(path.dirname(file(name)), { recursive: true });
      cpSync(path.join(repoRoot, name), file(name));
    }
    const setVersion = (text: string) => text.replace(/("version": )"[^"]*"/, `$1"${version}"`);
    edit("package.json", setVersion);
    edit("devkit/package.json", (text) =>
      setVersion(text).replace(/("peerDependencies":\s*\{[^}]*"partner-api-client":\s*)"[^"]*"/, `$1"${version}"`),
    );
    edit("openapi/openapi.yaml", (text) => withContractVersion(text, version));
    edit("generated/openapi.json", setVersion);
    mkdirSync(file("release/versions"), { recursive: true });
    cpSync(file("generated/openapi.json"), file(`release/versions/${version}.json`));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("a released tree's packages and contract carry one version", async () => {
    expect(await releaseMismatches(root, version)).toEqual([]);
    expect(await releaseMismatches(root, "1.4.1")).toHaveLength(CHECKED_VERSIONS);
  });

  it("passes the tag of that version, as --tag or GITHUB_REF_NAME, and says so", async () => {
    const run = await runInProcess(releaseCheckCommand, ["--tag", `v${version}`, "--root", root]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`v${version}: both packages and the contract are ${version}`);
    const fromEnv = process.env.GITHUB_REF_NAME;
    process.env.GITHUB_REF_NAME = `v${version}`;
    try {
      expect((await runInProcess(releaseCheckCommand, ["--root", root])).code).toBe(0);
    } finally {
      if (fromEnv === undefined) delete process.env.GITHUB_REF_NAME;
      else process.env.GITHUB_REF_NAME = fromEnv;
    }
  });

  it("stops (exit 1) on a tag of another version, naming every version that disagrees", async () => {
    const run = await runInProcess(releaseCheckCommand, ["--tag", "v99.0.0", "--root", root]);
    expect(run.code).toBe(1);
    for (const source of VERSION_SOURCES) expect(run.stderr).toContain(`${source.file}: ${source.what} is ${version}`);
    expect(run.stderr).toContain(
      "release/versions/99.0.0.json: the release's kept contract (the docs' version switcher) is missing",
    );
    expect(run.stderr).toMatch(/v99\.0\.0 does not match 6 of 6 versions: nothing may be published/);
  });

  it.each([
    [
      `release/versions/${version}.json`,
      (text: string) => text.replace(/"version": "[^"]*"/, '"version": "0.0.9"'),
      "the release's kept contract (the docs' version switcher) is 0.0.9",
    ],
    [
      "devkit/package.json",
      (text: string) => text.replace(/"version": "[^"]*"/, '"version": "0.0.9"'),
      "partner-api-devkit's version is 0.0.9",
    ],
    [
      "devkit/package.json",
      (text: string) => text.replace(/("peerDependencies":\s*\{[^}]*"partner-api-client":\s*)"[^"]*"/, '$1"0.0.9"'),
      "peer dependency on partner-api-client is 0.0.9",
    ],
    [
      "openapi/openapi.yaml",
      (text: string) => withContractVersion(text, "0.0.9"),
      "the contract's info.version is 0.0.9",
    ],
    [
      "generated/openapi.json",
      (text: string) => text.replace(/"version": "[^"]*"/, '"version": "0.0.9"'),
      "the bundled contract's info.version is 0.0.9",
    ],
    [
      "package.json",
      (text: string) => text.replace(/"version": "[^"]*",\n/, ""),
      "partner-api-client's version is missing",
    ],
  ])("one disagreeing file is enough: %s (%s)", async (name, change, message) => {
    edit(name, change);
    const run = await runInProcess(releaseCheckCommand, ["--tag", `v${version}`, "--root", root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${name}: `);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toMatch(/does not match 1 of 6 versions/);
  });

  it("a tag that is not v<x.y.z>, or none, is bad input (exit 2)", async () => {
    expect(versionOfTag("refs/tags/v1.2.3")).toBe("1.2.3");
    for (const tag of ["1.2.3", "v1.2", "v1.2.3-rc.1", "release-1.2.3"]) {
      const run = await runInProcess(releaseCheckCommand, ["--tag", tag, "--root", root]);
      expect(run.code, tag).toBe(2);
      expect(run.stderr).toContain(`--tag must be v<x.y.z> as npm run release makes it (v1.2.0), got "${tag}"`);
    }
    const saved = process.env.GITHUB_REF_NAME;
    delete process.env.GITHUB_REF_NAME;
    try {
      const none = await runInProcess(releaseCheckCommand, ["--root", root]);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain("--tag is required (or GITHUB_REF_NAME)");
    } finally {
      if (saved !== undefined) process.env.GITHUB_REF_NAME = saved;
    }
  });
});
