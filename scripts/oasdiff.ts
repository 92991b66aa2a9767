/**
 * `npm run oasdiff -- table <checker/rules.go> --commit <sha> [--date YYYY-MM-DD] [--out <file>]`
 *
 * oasdiff as the gate's yardstick: reads oasdiff's rule registry (its `checker/rules.go`, with the id constants of
 * the files beside it) and writes the committed table of every rule id with its level, direction and area, stamped
 * with the commit read (scripts/lib/diff/oasdiff-rules.ts). The corpus of oasdiff's own tests is run by
 * `npm run oasdiff:parity` (test/diff/oasdiff-corpus/parity.ts: scripts never import test/).
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import {
  type CommandGroup,
  defineCommand,
  describeValue,
  isEntryPoint,
  main,
  UsageError,
} from "partner-api-devkit/cli";
import { readRules, renderTable } from "./lib/diff/oasdiff-table.ts";
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

export const oasdiffCommands: CommandGroup = {
  name: "npm run oasdiff --",
  summary: "oasdiff as the contract gate's yardstick: its rule table",
  commands: { table: tableCommand },
};

if (isEntryPoint(import.meta.url)) await main(oasdiffCommands);
