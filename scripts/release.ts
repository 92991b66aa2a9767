/**
 * `npm run release -- [patch|minor|major] [--dry-run] [--no-tag]`
 *
 * Compares the working contract with the last released one (the release baseline, release/openapi.json),
 * refuses a release while a change at the gate's failing level is neither acknowledged nor undone (the release would
 * make it the baseline, past the gate), refuses a bump smaller than the changes need (breaking → major, compatible →
 * minor, documentation → patch), then gives the package and the contract's `info.version` the new version (one number
 * for both), prepends the changes in partners' words to CHANGELOG.md, records the contract as the new baseline and
 * keeps a copy under release/versions/, empties the acknowledged list of the gate's config, and commits and tags
 * `v<version>`.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  type CliIO,
  defineCommand,
  describeValue,
  isEntryPoint,
  JobFailure,
  main,
  UsageError,
} from "partner-api-devkit/cli";
import { parseDocument } from "yaml";
import { bundleContract } from "./lib/bundle.ts";
import { RELEASE_BASELINE } from "./lib/diff/baseline.ts";
import { CONFIG_FILE, readConfig } from "./lib/diff/config.ts";
import { bundleWorkingTree, gitTopLevel, loadFile } from "./lib/diff/load.ts";
import { countLine, type DiffReport, diffContracts, type Verdict } from "./lib/diff/report.ts";
import { operationNames, partnerChangelog } from "./lib/release/changelog.ts";
import { checkReadyToTag, commitAndTag } from "./lib/release/git.ts";
import {
  CONTRACT_ROOT_FILE,
  contractVersionOf,
  currentVersion,
  releasedContractFile,
  withContractVersion,
} from "./lib/release/versions.ts";

export const BUMPS = ["patch", "minor", "major"] as const;
export type Bump = (typeof BUMPS)[number];

export const CHANGELOG_FILE = "CHANGELOG.md";
const CHANGELOG_TITLE = "# Changelog\n";

/** The smallest bump a verdict allows. */
export function requiredBump(verdict: Verdict): Bump {
  return verdict === "breaking" ? "major" : verdict === "compatible" ? "minor" : "patch";
}

/** `1.4.2` bumped: major → 2.0.0, minor → 1.5.0, patch → 1.4.3. */
export function bumpVersion(version: string, bump: Bump): string {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new UsageError(`package.json version ${describeValue(version)} is not x.y.z`);
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  if (bump === "major") return `${major + 1}.0.0`;
  if (bump === "minor") return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** The check whose failing change `x-extensible-enum` avoids: a response enum that may grow. */
const EXTENSIBLE_ENUM_CHECK = "response-enum-value-added";

/**
 * Refuses a release while any change at the gate's failing level is neither acknowledged nor undone: a release
 * makes the contract the new baseline, after which the gate would no longer see the change. The message names
 * each change and the ways out that exist for it.
 */
export function refuseUnacknowledged(report: DiffReport): void {
  if (report.failing.length === 0) return;
  const changes = report.failing.map((change) => `  - ${change.check} ${change.location}: ${change.message}`);
  const checks = [...new Set(report.failing.map((change) => change.check))];
  const ways = [
    "undo the change in openapi/;",
    `acknowledge it in ${CONFIG_FILE} (acknowledged: - change: "<check> <location>" as printed above, reason: why partners can live with it), then release a major version;`,
    `or lower its check's level in ${CONFIG_FILE} (levels: { ${checks[0]}: warning }) when the check does not fit this API.`,
  ];
  if (checks.includes(EXTENSIBLE_ENUM_CHECK))
    ways.push(`For ${EXTENSIBLE_ENUM_CHECK}: list values that may grow under x-extensible-enum instead of enum.`);
  throw new JobFailure(
    `release refused: ${report.failing.length} change(s) at level ${report.failOn} since the last release are neither acknowledged nor undone:\n` +
      `${changes.join("\n")}\nWays out: ${ways.join("\n  ")}`,
  );
}

/** npm's lock file: it names the package's version twice and the devkit's peer dependency on it. */
const LOCK_FILE = "package-lock.json";

/**
 * package-lock.json with the root package's version (top level and `packages[""]`) and the devkit's peer dependency
 * on the client set to `version`, as `npm install` would write them after the manifests changed.
 */
export function withLockVersion(text: string, version: string): string {
  const lock = JSON.parse(text) as {
    version?: string;
    packages?: Record<string, { version?: string; peerDependencies?: Record<string, string> }>;
  };
  lock.version = version;
  const rootPackage = lock.packages?.[""];
  if (rootPackage) rootPackage.version = version;
  const name = (lock as { name?: string }).name;
  for (const entry of Object.values(lock.packages ?? {}))
    if (name && entry.peerDependencies?.[name] !== undefined) entry.peerDependencies[name] = version;
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** The devkit's manifest, whose peer dependency on the client follows the client's version. */
const DEVKIT_MANIFEST = "devkit/package.json";
const PEER_CLIENT = /("peerDependencies":\s*\{[^}]*"partner-api-client":\s*")[^"]*(")/;

export interface ReleaseResult {
  version: string;
  bump: Bump;
  verdict: Verdict;
  written: string[];
  /** The tag made (`v1.2.0`), when the release was tagged. */
  tag?: string;
}

/** The released contract: the working tree's bundle with `info.version` set to the release's version. */
function releasedDocument(document: Record<string, unknown>, version: string): Record<string, unknown> {
  const info = (document.info ?? {}) as Record<string, unknown>;
  return { ...document, info: { ...info, version } };
}

/** generated/openapi.{yaml,json} bundled again from `root`'s contract (its info.version changed); none without them. */
async function rebundled(root: string): Promise<[string, string][]> {
  const json = path.join(root, "generated", "openapi.json");
  if (!existsSync(json)) return [];
  const output = await bundleContract(path.join(root, CONTRACT_ROOT_FILE), path.join(root, "redocly.yaml"));
  return [
    [path.join(root, "generated", "openapi.yaml"), output.yaml],
    [json, output.json],
  ];
}

/** Does the release in the repository at `root`; `today` dates the changelog entry (YYYY-MM-DD). */
export async function release(
  root: string,
  requested: Bump | undefined,
  io: CliIO,
  options: { dryRun?: boolean; today?: string; tag?: boolean } = {},
): Promise<ReleaseResult> {
  const baselineFile = path.join(root, RELEASE_BASELINE);
  if (!existsSync(baselineFile))
    throw new UsageError(`no release baseline at ${RELEASE_BASELINE}: it is written by the first release`);
  const [base, head] = await Promise.all([loadFile(baselineFile, "baseline"), bundleWorkingTree(root)]);
  const config = await readConfig(path.join(root, CONFIG_FILE), CONFIG_FILE);
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const report = diffContracts(base, head, { config, today });
  refuseUnacknowledged(report);
  const needed = requiredBump(report.verdict);
  const bump = requested ?? needed;
  if (BUMPS.indexOf(bump) < BUMPS.indexOf(needed)) {
    throw new JobFailure(
      `a ${bump} release is too small: the changes since the last release are ${report.verdict} (${countLine(report)}), which needs a ${needed} release`,
    );
  }
  const packageFile = path.join(root, "package.json");
  const packageText = await readFile(packageFile, "utf8");
  const contractFile = path.join(root, CONTRACT_ROOT_FILE);
  const contractText = await readFile(contractFile, "utf8");
  // One number for the package and the contract, counted on from the higher of the two.
  const current = currentVersion(
    (JSON.parse(packageText) as { version?: string }).version ?? "",
    contractVersionOf(contractText),
  );
  const version = bumpVersion(current, bump);
  if (options.tag && !options.dryRun) checkReadyToTag(root, version);
  io.err(`${countLine(report)}: ${current} → ${version} (${bump}${requested ? "" : ", the smallest allowed"})`);

  const entry = partnerChangelog(report, version, today, operationNames(base.document, head.document));
  const released = `${JSON.stringify(releasedDocument(head.document, version), null, 2)}\n`;
  const changelogFile = path.join(root, CHANGELOG_FILE);
  const changelog = existsSync(changelogFile) ? await readFile(changelogFile, "utf8") : CHANGELOG_TITLE;
  const rest = changelog.startsWith(CHANGELOG_TITLE) ? changelog.slice(CHANGELOG_TITLE.length) : changelog;
  const files: [string, string][] = [
    // Only the version line changes, so package.json keeps its layout.
    [packageFile, packageText.replace(/("version":\s*")[^"]*(")/, `$1${version}$2`)],
    [changelogFile, `${CHANGELOG_TITLE}\n${entry.trimEnd()}\n${rest.startsWith("\n") ? "" : "\n"}${rest}`],
    [baselineFile, released],
    [path.join(root, releasedContractFile(version)), released],
    [contractFile, withContractVersion(contractText, version)],
  ];
  const lockFile = path.join(root, LOCK_FILE);
  if (existsSync(lockFile)) files.push([lockFile, withLockVersion(await readFile(lockFile, "utf8"), version)]);
  const devkitFile = path.join(root, DEVKIT_MANIFEST);
  if (existsSync(devkitFile)) {
    // The devkit is released under the same number (the release workflow publishes both from the tag, and
    // scripts/release-check.ts refuses a tag either package disagrees with); its peer dependency is the client's
    // exact version (test/layout/imports.test.ts holds it).
    const devkitText = await readFile(devkitFile, "utf8");
    files.push([
      devkitFile,
      devkitText.replace(/("version":\s*")[^"]*(")/, `$1${version}$2`).replace(PEER_CLIENT, `$1${version}$2`),
    ]);
  }
  const configFile = path.join(root, CONFIG_FILE);
  if (config.acknowledged.length > 0) {
    // Acknowledged changes are released now; the next release is measured from here.
    const yaml = parseDocument(await readFile(configFile, "utf8"));
    yaml.set("acknowledged", yaml.createNode([]));
    files.push([configFile, yaml.toString()]);
  }
  if (!options.dryRun) {
    await mkdir(path.join(root, path.dirname(releasedContractFile(version))), { recursive: true });
    for (const [file, text] of files) await writeFile(file, text);
    // The bundle carries info.version too: bundled again from the contract just written.
    for (const [file, text] of await rebundled(root)) {
      await writeFile(file, text);
      files.push([file, text]);
    }
  }
  const written = files.map(([file]) => path.relative(root, file));
  const tag = options.tag && !options.dryRun ? commitAndTag(root, written, version).tag : undefined;
  return { version, bump, verdict: report.verdict, written, ...(tag ? { tag } : {}) };
}

export const releaseCommand = defineCommand({
  name: "npm run release --",
  summary: "release the contract: check the bump against the changes since the last release, then record it",
  usage: `Usage: npm run release -- [patch|minor|major] [--dry-run] [--no-tag]

Compares the working contract with the release baseline (${RELEASE_BASELINE}). Refuses while a change the gate
fails on (npm run diff) is neither acknowledged in ${CONFIG_FILE} nor undone. Without a bump, uses the smallest
the changes allow: breaking → major, compatible → minor, documentation only → patch; a smaller one is refused.
The package and the contract share one version, counted on from the higher of the two. Writes package.json,
package-lock.json and
${CONTRACT_ROOT_FILE} (the version; the bundle in generated/ follows), ${CHANGELOG_FILE} (what partners must do, per
operation, on top), the new baseline and a copy of it under release/versions/, ${DEVKIT_MANIFEST} (the same version, its peer dependency
on the client), and empties the acknowledged list in ${CONFIG_FILE}; then commits those files as "Release <version>"
and tags the commit v<version>. Refused (exit 1) when the working tree has uncommitted changes or the tag exists.

Options:
  --dry-run   say what would be written, write nothing, tag nothing
  --no-tag    write the files, leave committing and tagging to you`,
  options: { "dry-run": { type: "boolean" }, "no-tag": { type: "boolean" } },
  positionals: { max: 1 },
  async run({ values, positionals, io }) {
    const [requested] = positionals;
    if (requested !== undefined && !(BUMPS as readonly string[]).includes(requested))
      throw new UsageError(`the bump must be one of ${BUMPS.join(", ")}, got ${describeValue(requested)}`);
    const root = gitTopLevel(process.cwd()) ?? process.cwd();
    const result = await release(root, requested as Bump | undefined, io, {
      dryRun: values["dry-run"],
      tag: !values["no-tag"],
    });
    io.out(`${values["dry-run"] ? "would write" : "wrote"} ${result.written.join(", ")}`);
    if (result.tag) io.out(`committed them as "Release ${result.version}" and tagged it ${result.tag}`);
    return `release ${result.version} (${result.bump}, ${result.verdict})${values["dry-run"] ? " (dry run)" : ""}`;
  },
});

if (isEntryPoint(import.meta.url)) await main(releaseCommand);
