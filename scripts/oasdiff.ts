/**
 * `npm run oasdiff -- table <checker/rules.go> --commit <sha> [--date YYYY-MM-DD] [--out <file>]`
 * `npm run oasdiff -- parity [--write] [--json]`
 *
 * oasdiff as the gate's yardstick. `table` reads oasdiff's rule registry (its `checker/rules.go`, with the id
 * constants of the files beside it) and writes the committed table of every rule id with its level, direction and
 * area, stamped with the commit read (scripts/lib/diff/oasdiff-rules.ts). `parity` runs the corpus of pairs taken
 * from oasdiff's own checker tests (test/diff/oasdiff-corpus/) under `--profile oasdiff`, prints the agreement and
 * every difference, and fails below the floor; `--write` regenerates the docs' section from that run.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  type CommandGroup,
  defineCommand,
  describeValue,
  isEntryPoint,
  JobFailure,
  main,
  UsageError,
} from "partner-api-devkit/cli";
import { PAIRS } from "../test/diff/oasdiff-corpus/index.ts";
import { readRules, renderTable } from "./lib/diff/oasdiff-table.ts";
import { describeDifference, measureParity, renderDocs } from "./lib/diff/parity.ts";
import { ROWS } from "./lib/diff/registry.ts";
import { rel, repoRoot } from "./lib/paths.ts";

export const TABLE_FILE = path.join(repoRoot, "scripts", "lib", "diff", "oasdiff-rules.ts");

export const tableCommand = defineCommand({
  name: "npm run oasdiff -- table",
  summary: "read oasdiff's checker/rules.go and write the table of its rule ids and levels",
  usage: `Usage: npm run oasdiff -- table <path/to/oasdiff/checker/rules.go> --commit <sha> [--date YYYY-MM-DD] [--out <file>]

Reads every newBackwardCompatibilityRule(…) row of rules.go (the ids are Go constants declared in the other
files of its folder) and writes a TypeScript table of every rule id with its level, direction, area, kind,
action, handler and line, stamped with the commit it was read from. A row it does not understand is an error
naming the file and line.

Options:
  --commit <sha>   the oasdiff commit the file is from (40 hex digits)
  --date <day>     that commit's date (YYYY-MM-DD)
  --out <file>     where to write (default: ${rel(TABLE_FILE)})`,
  options: { commit: { type: "string" }, date: { type: "string" }, out: { type: "string" } },
  positionals: { min: 1, max: 1 },
  async run({ values, positionals, io }) {
    const [file] = positionals as [string];
    const commit = values.commit ?? "";
    if (!/^[0-9a-f]{40}$/.test(commit))
      throw new UsageError(
        `--commit must be the 40 hex digits of the oasdiff commit read, got ${describeValue(values.commit)}`,
      );
    if (values.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.date))
      throw new UsageError(`--date must be YYYY-MM-DD, got ${describeValue(values.date)}`);
    const shown = `${path.basename(path.dirname(path.resolve(file)))}/${path.basename(file)}`;
    const rules = await readRules(file, shown);
    const out = values.out === undefined ? TABLE_FILE : path.resolve(values.out);
    await writeFile(out, renderTable(rules, { commit, date: values.date, file: "checker/rules.go" }));
    const levels = ["error", "warning", "info"].map(
      (level) => `${rules.filter((r) => r.level === level).length} ${level}`,
    );
    io.out(`wrote ${rel(out)}: ${rules.length} rules (${levels.join(", ")}) from ${shown} at ${commit.slice(0, 8)}`);
    return `${rules.length} oasdiff rules`;
  },
});

export const GUIDE = path.join(repoRoot, "docs", "api-team.md");

export const parityCommand = defineCommand({
  name: "npm run oasdiff -- parity",
  summary: "run the corpus of oasdiff's own tests under --profile oasdiff; print the agreement and the differences",
  usage: `Usage: npm run oasdiff -- parity [--write]

Runs every pair of test/diff/oasdiff-corpus/ (each reproduces one of oasdiff's checker tests) under --profile
oasdiff and the default profile, prints how many agree with oasdiff's verdict and every difference with the
judgment that explains it. Fails (exit 1) on a difference no judgment explains, and when the generated sections of
${rel(GUIDE)} (the stricter picks, the measured differences) are not what this run renders.

Options:
  --write   rewrite those sections of ${rel(GUIDE)} from this run`,
  options: { write: { type: "boolean" } },
  async run({ values, io }) {
    const report = measureParity(PAIRS);
    io.out(
      `${report.agreeing}/${report.total} pairs agree with oasdiff (commit ${report.commit.slice(0, 8)}) under --profile oasdiff, ` +
        `${report.sameLevel} to the level; ${report.agreeingByDefault} by default`,
    );
    for (const result of report.differences) io.out(`  ${describeDifference(result)}`);
    const text = await readFile(GUIDE, "utf8");
    const fresh = renderDocs(text, report, ROWS, rel(GUIDE));
    if (values.write && fresh !== text) {
      await writeFile(GUIDE, fresh);
      io.out(`wrote the generated sections of ${rel(GUIDE)}`);
    }
    const unexplained = report.differences.filter((result) => !result.pair.judgment).length;
    if (unexplained > 0) throw new JobFailure(`${unexplained} difference(s) from oasdiff that no judgment explains`);
    if (!values.write && fresh !== text)
      throw new JobFailure(`${rel(GUIDE)}'s generated sections are stale: run npm run oasdiff -- parity --write`);
    return `${report.agreeing}/${report.total} pairs agree`;
  },
});

export const oasdiffCommands: CommandGroup = {
  name: "npm run oasdiff --",
  summary: "oasdiff as the contract gate's yardstick: its rule table, and the corpus of its own tests",
  commands: { table: tableCommand, parity: parityCommand },
};

if (isEntryPoint(import.meta.url)) await main(oasdiffCommands);
