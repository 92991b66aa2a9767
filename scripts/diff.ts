/**
 * `npm run diff -- [--base <file | ref | ref:file>] [--head <file | ref | ref:file>] [--format text|markdown|json|github]
 *  [--fail-on error|warning|info] [--profile default|oasdiff] [--config <file>] [--list-checks]`
 *
 * Compares two contracts and reports every change with its check id and level. The base defaults to the
 * release baseline (release/openapi.json), the head to the working tree's contract. Exit 0: nothing at or
 * above the --fail-on level (or all of it acknowledged); 1: the gate fails; 2: bad input; 3: a bug.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { defineCommand, describeValue, isEntryPoint, JobFailure, main, UsageError } from "partner-api-devkit/cli";
import { RELEASE_BASELINE } from "./lib/diff/baseline.ts";
import { CONFIG_FILE, readConfig } from "./lib/diff/config.ts";
import { bundleWorkingTree, gitTopLevel, loadContract, loadFile, mergeBase } from "./lib/diff/load.ts";
import { LEVELS, type Level, listChecks, PROFILES, type Profile } from "./lib/diff/registry.ts";
import {
  countLine,
  type DiffReport,
  diffContracts,
  formatGithub,
  formatJson,
  formatMarkdown,
  formatText,
} from "./lib/diff/report.ts";
import { sourceLines } from "./lib/diff/source-lines.ts";

const FORMATS = ["text", "markdown", "json", "github"] as const;
type Format = (typeof FORMATS)[number];

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], option: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`${option} must be one of ${allowed.join(", ")}, got ${describeValue(value)}`);
  return value as T;
}

/**
 * The registry as `--list-checks` prints it: id, level, family and the detector that reports it (file#function);
 * with `json`, an array of objects with `id`, `level`, `direction`, `family`, `detector`, `title` and, where
 * oasdiff has the check, its `oasdiff` id and level.
 */
export function formatChecks(profile: Profile = "default", format: "text" | "json" = "text"): string {
  const checks = listChecks(profile);
  if (format === "json") return `${JSON.stringify(checks)}\n`;
  const width = (key: "id" | "family") => Math.max(...checks.map((check) => check[key].length));
  const [idWidth, familyWidth] = [width("id"), width("family")];
  return `${checks
    .map(
      (check) =>
        `${check.id.padEnd(idWidth)}  ${check.level.padEnd(7)}  ${check.family.padEnd(familyWidth)}  ${check.detector}`,
    )
    .join("\n")}\n`;
}

/**
 * The informational line of a run against another base: what the working tree carries since the last release
 * (`release/openapi.json`), which the release judges (`npm run release`), not this run.
 */
export function unreleasedLine(report: DiffReport): string {
  const pending =
    report.failing.length > 0 ? `; ${report.failing.length} would stop the release until acknowledged` : "";
  return `unreleased since the last release (${report.base.version}, ${RELEASE_BASELINE}): ${countLine(report)}${pending} (information: this run does not fail on it)`;
}

export const diffCommand = defineCommand({
  name: "npm run diff --",
  summary: "compare two contracts: every change with its check id and level; fails on breaking changes",
  usage: `Usage: npm run diff -- [--base <contract>] [--head <contract>] [options]

A contract is a file (OpenAPI 3.0 or 3.1, YAML or JSON, split documents are bundled), <ref>:<file>
(main:openapi/openapi.yaml), or a git ref alone (this repository's openapi/openapi.yaml at that commit).

Options:
  --base <contract>      what the head is compared with (default: the release baseline, ${RELEASE_BASELINE})
  --merge-base <ref>     compare with where HEAD left <ref> (git merge-base HEAD <ref>: a pull request's own
                         change, origin/main); then a line also says what is unreleased since the last release
  --head <contract>      the new contract (default: the working tree's ${"openapi/openapi.yaml"}, bundled)
  --format <format>      text (default), markdown (changelog), json (one object per change), github (annotations)
  --fail-on <level>      error (default), warning or info: the lowest level that fails the gate
  --profile <profile>    default (this gate's levels) or oasdiff (oasdiff's level for every check both tools
                         have; the config's levels still win)
  --config <file>        check levels and acknowledged changes (default: ${CONFIG_FILE} if present)
  --list-checks          print every check: id, level, family, detector (file#function), and exit;
                         with --format json, an array of objects

Exit codes: 0 pass, 1 failed the --fail-on threshold, 2 bad input, 3 internal error.`,
  options: {
    base: { type: "string" },
    "merge-base": { type: "string" },
    head: { type: "string" },
    format: { type: "string" },
    "fail-on": { type: "string" },
    config: { type: "string" },
    profile: { type: "string" },
    "list-checks": { type: "boolean" },
  },
  async run({ values, io }) {
    const profile: Profile = oneOf(values.profile, PROFILES, "--profile", "default");
    if (values["list-checks"]) {
      const format = oneOf(values.format, ["text", "json"] as const, "--format (with --list-checks)", "text");
      io.out(formatChecks(profile, format));
      return `${listChecks().length} checks`;
    }
    const format: Format = oneOf(values.format, FORMATS, "--format", "text");
    const failOn: Level = oneOf(values["fail-on"], LEVELS, "--fail-on", "error");
    const repoDir = gitTopLevel(process.cwd());
    const workDir = repoDir ?? process.cwd();
    if (values.base !== undefined && values["merge-base"] !== undefined)
      throw new UsageError("give --base or --merge-base, not both");
    if (values["merge-base"] !== undefined && !repoDir)
      throw new UsageError("--merge-base needs a git repository: the current directory is not in one");
    const baselineFile = path.join(workDir, RELEASE_BASELINE);
    const baseValue =
      values["merge-base"] !== undefined ? mergeBase(values["merge-base"], repoDir!) : (values.base ?? baselineFile);
    if (values.base === undefined && values["merge-base"] === undefined && !existsSync(baseValue))
      throw new UsageError(`no --base given and no release baseline (${RELEASE_BASELINE}); give --base <contract>`);
    const [loadedBase, head] = await Promise.all([
      loadContract(baseValue, values["merge-base"] !== undefined ? "--merge-base" : "--base", repoDir),
      values.head === undefined ? bundleWorkingTree(workDir) : loadContract(values.head, "--head", repoDir),
    ]);
    const base =
      values["merge-base"] === undefined
        ? loadedBase
        : { ...loadedBase, label: `merge-base of HEAD and ${values["merge-base"]}, ${loadedBase.label}` };
    const configFile = values.config ?? path.join(workDir, CONFIG_FILE);
    const config = await readConfig(configFile, values.config ?? CONFIG_FILE, values.config !== undefined);
    const report = diffContracts(base, head, { config, failOn, profile });
    // Judged against another base (a merge-base), the release's view is one informational line: what the next
    // release will carry, never failing this run.
    const comparesBaseline = existsSync(baselineFile) && path.resolve(baseValue) === path.resolve(baselineFile);
    const unreleased =
      !comparesBaseline && values.head === undefined && existsSync(baselineFile)
        ? diffContracts(await loadFile(baselineFile, "baseline"), head, { config, failOn, profile })
        : undefined;
    // An acknowledgement stands until the release that carries its change: judged against a merge-base, an entry
    // for a change made before it is still needed, and only one that matches nothing since the release either is stale.
    if (unreleased)
      report.unusedAllowEntries = report.unusedAllowEntries.filter((entry) =>
        unreleased.unusedAllowEntries.includes(entry),
      );
    const sources = values.head === undefined ? sourceLines(workDir) : undefined;
    const output = {
      text: formatText,
      markdown: formatMarkdown,
      json: formatJson,
      github: (r: DiffReport) => formatGithub(r, sources),
    }[format](report);
    if (output) io.out(output);
    if (unreleased) {
      const line = unreleasedLine(unreleased);
      if (format === "markdown") io.out(`_${line}_\n`);
      else if (format === "github") io.out(`::notice title=Unreleased since the last release::${line}\n`);
      io.err(line);
    }
    const summary = `compared ${report.base.label} with ${report.head.label}: ${countLine(report)}`;
    if (report.failing.length > 0) {
      throw new JobFailure(`${summary}; ${report.failing.length} change(s) at level ${failOn} or above`);
    }
    return summary;
  },
});

if (isEntryPoint(import.meta.url)) await main(diffCommand);
