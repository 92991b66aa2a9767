/**
 * `npm run release -- [patch|minor|major] [--dry-run]`
 *
 * Compares the working contract with the last released one (the release baseline, release/openapi.json),
 * refuses a release while a change at the gate's failing level is neither acknowledged nor undone (the release would
 * make it the baseline, past the gate), refuses a bump smaller than the changes need (breaking → major, compatible →
 * minor, documentation → patch),
 * then bumps package.json, prepends the Markdown report to CHANGELOG.md, records the contract as the new
 * baseline and empties the acknowledged list of the gate's config. It writes files; committing them is yours.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
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
import { RELEASE_BASELINE } from "./lib/diff/baseline.ts";
import { CONFIG_FILE, readConfig } from "./lib/diff/config.ts";
import { bundleWorkingTree, gitTopLevel, loadFile } from "./lib/diff/load.ts";
import { countLine, type DiffReport, diffContracts, formatMarkdown, type Verdict } from "./lib/diff/report.ts";

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

/** The devkit's manifest, whose peer dependency on the client follows the client's version. */
const DEVKIT_MANIFEST = "devkit/package.json";
const PEER_CLIENT = /("peerDependencies":\s*\{[^}]*"partner-api-client":\s*")[^"]*(")/;

export interface ReleaseResult {
  version: string;
  bump: Bump;
  verdict: Verdict;
  written: string[];
}

/** Does the release in the repository at `root`; `today` dates the changelog entry (YYYY-MM-DD). */
export async function release(
  root: string,
  requested: Bump | undefined,
  io: CliIO,
  options: { dryRun?: boolean; today?: string } = {},
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
  const current = (JSON.parse(packageText) as { version?: string }).version ?? "";
  const version = bumpVersion(current, bump);
  io.err(`${countLine(report)}: ${current} → ${version} (${bump}${requested ? "" : ", the smallest allowed"})`);

  const heading = `## ${version} (${today})`;
  const entry = formatMarkdown(report, heading).replace(/^### /gm, "#### ");
  const changelogFile = path.join(root, CHANGELOG_FILE);
  const changelog = existsSync(changelogFile) ? await readFile(changelogFile, "utf8") : CHANGELOG_TITLE;
  const rest = changelog.startsWith(CHANGELOG_TITLE) ? changelog.slice(CHANGELOG_TITLE.length) : changelog;
  const files: [string, string][] = [
    // Only the version line changes, so package.json keeps its layout.
    [packageFile, packageText.replace(/("version":\s*")[^"]*(")/, `$1${version}$2`)],
    [changelogFile, `${CHANGELOG_TITLE}\n${entry.trimEnd()}\n${rest.startsWith("\n") ? "" : "\n"}${rest}`],
    [baselineFile, `${JSON.stringify(head.document, null, 2)}\n`],
  ];
  const devkitFile = path.join(root, DEVKIT_MANIFEST);
  if (existsSync(devkitFile)) {
    // The devkit's peer dependency is the client's exact version (test/layout/imports.test.ts holds it).
    const devkitText = await readFile(devkitFile, "utf8");
    files.push([devkitFile, devkitText.replace(PEER_CLIENT, `$1${version}$2`)]);
  }
  const configFile = path.join(root, CONFIG_FILE);
  if (config.acknowledged.length > 0) {
    // Acknowledged changes are released now; the next release is measured from here.
    const yaml = parseDocument(await readFile(configFile, "utf8"));
    yaml.set("acknowledged", yaml.createNode([]));
    files.push([configFile, yaml.toString()]);
  }
  if (!options.dryRun) for (const [file, text] of files) await writeFile(file, text);
  const written = files.map(([file]) => path.relative(root, file));
  return { version, bump, verdict: report.verdict, written };
}

export const releaseCommand = defineCommand({
  name: "npm run release --",
  summary: "release the contract: check the bump against the changes since the last release, then record it",
  usage: `Usage: npm run release -- [patch|minor|major] [--dry-run]

Compares the working contract with the release baseline (${RELEASE_BASELINE}). Refuses while a change the gate
fails on (npm run diff) is neither acknowledged in ${CONFIG_FILE} nor undone. Without a bump, uses the smallest
the changes allow: breaking → major, compatible → minor, documentation only → patch; a smaller one is refused.
Then writes package.json (version), ${CHANGELOG_FILE} (the report on top), the new baseline, ${DEVKIT_MANIFEST} (its
peer dependency on the client, to the new version), and empties the acknowledged list in ${CONFIG_FILE}. Commit
those files (and tag the commit) to publish the release.

Options:
  --dry-run   say what would be written, write nothing`,
  options: { "dry-run": { type: "boolean" } },
  positionals: { max: 1 },
  async run({ values, positionals, io }) {
    const [requested] = positionals;
    if (requested !== undefined && !(BUMPS as readonly string[]).includes(requested))
      throw new UsageError(`the bump must be one of ${BUMPS.join(", ")}, got ${describeValue(requested)}`);
    const root = gitTopLevel(process.cwd()) ?? process.cwd();
    const result = await release(root, requested as Bump | undefined, io, { dryRun: values["dry-run"] });
    io.out(`${values["dry-run"] ? "would write" : "wrote"} ${result.written.join(", ")}`);
    return `release ${result.version} (${result.bump}, ${result.verdict})${values["dry-run"] ? " (dry run)" : ""}`;
  },
});

if (isEntryPoint(import.meta.url)) await main(releaseCommand);
