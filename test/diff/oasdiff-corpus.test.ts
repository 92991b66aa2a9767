/**
 * The gate against oasdiff's own checker tests (test/diff/oasdiff-corpus/): under `--profile oasdiff` every pair
 * gets oasdiff's verdict (an error, something reported below error, or nothing) but those that name a judgment
 * listed with its reason; the default profile is never looser than oasdiff but on those; and the docs' generated
 * section is what a fresh run renders. Prints the agreement figure.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OASDIFF_SOURCE } from "../../scripts/lib/diff/oasdiff-rules.ts";
import {
  describeDifference,
  JUDGMENTS,
  measureParity,
  readSection,
  renderDocs,
  runPair,
} from "../../scripts/lib/diff/parity.ts";
import { ROWS } from "../../scripts/lib/diff/registry.ts";
import { runInProcess, runScript } from "../helpers/run.ts";
import { PAIRS } from "./oasdiff-corpus/index.ts";
import { GUIDE, parityCommand } from "./oasdiff-corpus/parity.ts";

const report = measureParity(PAIRS);
const judged = PAIRS.filter((pair) => pair.judgment).length;

describe("oasdiff's checker tests as the gate's corpus", () => {
  it("prints the agreement figure and holds the floor: every pair agrees but the listed judgments", () => {
    console.log(
      `oasdiff parity (commit ${OASDIFF_SOURCE.commit.slice(0, 8)}): ${report.agreeing}/${report.total} pairs agree under --profile oasdiff ` +
        `(${report.sameLevel} to the level), ${judged} judgment differences; ${report.agreeingByDefault}/${report.total} by default`,
    );
    const unexplained = report.differences.filter((result) => !result.pair.judgment);
    expect(unexplained.map(describeDifference)).toEqual([]);
    expect(report.agreeing).toBeGreaterThanOrEqual(report.total - judged);
  });

  it("has at least 150 pairs, each naming its test, file and commit, none twice", () => {
    expect(PAIRS.length).toBeGreaterThanOrEqual(150);
    const keys = PAIRS.map((pair) => `${pair.file}#${pair.test}`);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
    for (const pair of PAIRS) {
      expect(pair.test).toMatch(/^Test\w+$/);
      expect(pair.file).toMatch(/^checker\/\w+_test\.go$/);
      expect(pair.commit).toBe(OASDIFF_SOURCE.commit);
    }
  });

  it.each(PAIRS.filter((pair) => pair.judgment).map((pair) => [pair.test, pair] as const))(
    "%s differs as its judgment says (a stale judgment fails)",
    (_test, pair) => {
      expect(runPair(pair).agrees, describeDifference(runPair(pair))).toBe(false);
      expect(JUDGMENTS[pair.judgment!]).toBeTruthy();
    },
  );

  it("is never looser by default than oasdiff, but on the listed judgments", () => {
    expect(report.looserByDefault.filter((result) => !result.pair.judgment).map(describeDifference)).toEqual([]);
  });

  it("docs/design/oasdiff-parity.md's generated sections are what this run renders (npm run oasdiff:parity -- --write)", () => {
    const guide = readFileSync(GUIDE, "utf8");
    const fresh = renderDocs(guide, report, ROWS, "docs/design/oasdiff-parity.md");
    for (const section of ["profiles", "differences"] as const)
      expect(readSection(guide, section), `the ${section} section is stale`).toBe(readSection(fresh, section));
    expect(readSection(guide, "differences")).toContain(`**${report.agreeing} of ${report.total}**`);
  });

  it("npm run oasdiff:parity says the same and exits 0 on fresh docs", async () => {
    const run = await runInProcess(parityCommand, []);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${report.agreeing}/${report.total} pairs agree with oasdiff`);
    expect(run.stdout.split("\n").filter((line) => line.includes("judgment:"))).toHaveLength(judged);
    expect(run.stderr).toMatch(/pairs agree in \d/);
  });

  it("npm run oasdiff:parity exits 0 as a process", { tags: ["slow"] }, () => {
    const run = runScript("test/diff/oasdiff-corpus/parity.ts", []);
    expect(run.status, run.stderr).toBe(0);
  });

  it("each pair makes a change: its revision differs from its base", () => {
    for (const pair of PAIRS) expect(JSON.stringify(pair.revision), pair.test).not.toBe(JSON.stringify(pair.base));
  });
});
