/**
 * The README's times of the test commands are the ones bench/RESULTS.md records (bench/test-timings.ts), whether a
 * full bench run wrote them or they were measured by hand.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FAST_COMMAND_LABEL, WHOLE_SET_LABEL } from "../../bench/pipeline.ts";
import { readmeTimingSentence, readTestTimings } from "../../bench/test-timings.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");

/** The README's marked sentence, on one line. */
function readmeTimings(readme: string): string {
  const found = /<!-- test-timings:[^>]*-->\n([\s\S]*?)\n<!-- \/test-timings -->/.exec(readme);
  if (!found) throw new Error("README.md has no <!-- test-timings --> section");
  return found[1]!.replace(/\s+/g, " ").trim();
}

const byHand = `## Pipeline

| \`npm test\` | 239,348 | ms |

### The fast command (\`npm test\`), measured by hand on 2026-11-25

| Measured | Value | Unit |
|---|---:|---|
| wall time, \`tsc\`'s incremental cache and vitest's cache removed first (cold) | 22,262 | ms |
| wall time, an everyday re-run (caches warm) | 16,549 | ms |

For scale, \`npm run test:all\` (Biome, \`tsc\`, then every project) took 166,829 ms wall and more.

## Contract gate
`;

describe("the README's test times", () => {
  it("are what bench/RESULTS.md records", () => {
    const expected = readmeTimingSentence(readTestTimings(read("bench/RESULTS.md")));
    expect(readmeTimings(read("README.md")), `README.md should say: ${expected}`).toBe(expected);
  });

  it("read the section measured by hand, not the pipeline's old whole-set row", () => {
    const timings = readTestTimings(byHand);
    expect(timings).toEqual({
      source: "measured by hand",
      date: "2026-11-25",
      fastMs: 22262,
      fastRerunMs: 16549,
      wholeMs: 166829,
    });
    expect(readmeTimingSentence(timings)).toBe(
      "about 22 s on two cores from cold and 17 s on a re-run (the whole set: under 3 minutes; measured by hand on 2026-11-25)",
    );
  });

  it("take a full bench run's rows over the hand-measured section, and change with them", () => {
    const run = `| Date | 2026-12-01T10:00:00.000Z |\n\n| ${FAST_COMMAND_LABEL} | 31,400 | ms |\n| ${WHOLE_SET_LABEL} | 655,000 | ms |\n\n${byHand}`;
    expect(readmeTimingSentence(readTestTimings(run))).toBe(
      "about 31 s on two cores (the whole set: under 11 minutes; a full `npm run bench` on 2026-12-01)",
    );
  });

  it("take the day the pipeline's section was measured, when a later run with --only kept it", () => {
    const kept = `| Date | 2026-12-09T10:00:00.000Z |\n\n## Pipeline (\`pipeline\`, 17 min)\n\nMeasured on 2026-12-01T10:00:00.000Z, size full, load average at start 1.00, 1.00, 1.00.\n\n| ${FAST_COMMAND_LABEL} | 31,400 | ms |\n| ${WHOLE_SET_LABEL} | 655,000 | ms |\n\n## Size (\`size\`, 1 min)\n\nMeasured on 2026-12-09T10:00:00.000Z, size full, load average at start 1.00, 1.00, 1.00.\n`;
    expect(readTestTimings(kept).date).toBe("2026-12-01");
  });

  it("say what is missing when RESULTS.md times neither command", () => {
    expect(() => readTestTimings("# Benchmark results\n")).toThrow(/times neither test command/);
    expect(() => readTestTimings(byHand.replace("took 166,829 ms wall", "ran"))).toThrow(
      /lacks the cold, re-run or test:all/,
    );
  });
});
