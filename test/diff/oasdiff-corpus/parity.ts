/**
 * `npm run oasdiff:parity -- [--write]`: runs the corpus of oasdiff's own checker tests (this folder) under
 * `--profile oasdiff` and the default profile, prints the agreement and every difference with its judgment, and
 * fails on a difference no judgment explains or when docs/design/oasdiff-parity.md's generated sections are stale; `--write`
 * rewrites them. It lives beside its data: scripts/ never import test/.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { defineCommand, isEntryPoint, JobFailure, main } from "partner-api-devkit/cli";
import { describeDifference, measureParity, renderDocs } from "../../../scripts/lib/diff/parity.ts";
import { ROWS } from "../../../scripts/lib/diff/registry.ts";
import { rel, repoRoot } from "../../../scripts/lib/paths.ts";
import { PAIRS } from "./index.ts";

/** The note that holds the generated sections (the stricter picks, the measured differences). */
export const GUIDE = path.join(repoRoot, "docs", "design", "oasdiff-parity.md");

export const parityCommand = defineCommand({
  name: "npm run oasdiff:parity --",
  summary: "run the corpus of oasdiff's own tests under --profile oasdiff; print the agreement and the differences",
  usage: `Usage: npm run oasdiff:parity -- [--write]

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
      throw new JobFailure(`${rel(GUIDE)}'s generated sections are stale: run npm run oasdiff:parity -- --write`);
    return `${report.agreeing}/${report.total} pairs agree`;
  },
});

if (isEntryPoint(import.meta.url)) await main(parityCommand);
