/**
 * The README's times of the test commands are the ones bench/RESULTS.md records (bench/test-timings.ts, the
 * benchmark `tests`), and the pieces of that benchmark that can be checked without running CI.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  CI_LABEL,
  childCpuMs,
  FAST_COLD_LABEL,
  FAST_RERUN_LABEL,
  passed,
  readmeTimingSentence,
  readmeWithTimings,
  readTestTimings,
  timeWithCpu,
  vitestDurationMs,
} from "../../bench/test-timings.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");

/** The README's marked sentence, on one line. */
function readmeTimings(readme: string): string {
  const found = /<!-- test-timings:[^>]*-->\n([\s\S]*?)\n<!-- \/test-timings -->/.exec(readme);
  if (!found) throw new Error("README.md has no <!-- test-timings --> section");
  return found[1]!.replace(/\s+/g, " ").trim();
}

const section = (date: string, cold: string, rerun: string, ci: string) =>
  `| Date | 2026-12-09T10:00:00.000Z |\n\n## The test commands (\`tests\`, 14 min)\n\nMeasured on ${date}T10:00:00.000Z, size full.\n\n| Measured | Median | Unit |\n|---|---:|---|\n| ${CI_LABEL} | ${ci} | ms |\n| ${FAST_COLD_LABEL} | ${cold} | ms |\n| ${FAST_RERUN_LABEL} | ${rerun} | ms |\n\n## Size (\`size\`, 1 min)\n`;

describe("the README's test times", () => {
  it("are what bench/RESULTS.md records", () => {
    const expected = readmeTimingSentence(readTestTimings(read("bench/RESULTS.md")));
    expect(readmeTimings(read("README.md")), `README.md should say: ${expected}`).toBe(expected);
  });

  it("change with the rows, and take the day the section was measured", () => {
    const timings = readTestTimings(section("2026-12-01", "24,400", "17,600", "571,000"));
    expect(timings).toEqual({ date: "2026-12-01", fastColdMs: 24400, fastRerunMs: 17600, ciMs: 571000 });
    expect(readmeTimingSentence(timings)).toBe(
      "about 18 s on two cores on a re-run and 24 s from cold (`bash .ci/run` on a fresh clone: under 10 minutes; `npm run bench -- --only tests` on 2026-12-01)",
    );
    expect(readmeTimingSentence(readTestTimings(section("2026-12-02", "31,000", "26,100", "601,000")))).toBe(
      "about 26 s on two cores on a re-run and 31 s from cold (`bash .ci/run` on a fresh clone: under 11 minutes; `npm run bench -- --only tests` on 2026-12-02)",
    );
  });

  it("are written into the README's marked block by the benchmark, the rest of the README unchanged", () => {
    const readme = "# Title\n\n<!-- test-timings: made -->\nold words\n<!-- /test-timings -->\nafter\n";
    const written = readmeWithTimings(readme, section("2026-12-01", "24,400", "17,600", "571,000"));
    expect(written).toBe(
      readme.replace(
        "old words",
        readmeTimingSentence(readTestTimings(section("2026-12-01", "24,400", "17,600", "571,000"))),
      ),
    );
    expect(() => readmeWithTimings("# no block\n", section("2026-12-01", "1", "1", "1"))).toThrow(/test-timings/);
  });

  it("say what is missing when RESULTS.md times neither command", () => {
    expect(() => readTestTimings("# Benchmark results\n")).toThrow(/times neither test command/);
    expect(() =>
      readTestTimings(section("2026-12-01", "24,400", "17,600", "571,000").replace(FAST_RERUN_LABEL, "x")),
    ).toThrow(/times neither test command/);
  });
});

describe("the measuring", () => {
  it("reads the children's CPU from bash's times, and vitest's last Duration", () => {
    expect(childCpuMs("out\n@times\n0m0.010s 0m0.002s\n1m2.500s 0m0.500s\n")).toBe(63_000);
    expect(() => childCpuMs("no times here")).toThrow(/no CPU times/);
    expect(vitestDurationMs("Duration  1.50s (transform …)\n…\n   Duration  717.20s (transform 3s)")).toBe(717_200);
    expect(vitestDurationMs("Duration 950ms")).toBe(950);
    expect(vitestDurationMs("\u001b[2m   Duration \u001b[22m 587.75s\u001b[2m (tests 95%)\u001b[22m")).toBe(587_750);
    expect(vitestDurationMs("nothing")).toBeUndefined();
  });

  it("times a command with the CPU of what it started, a failing one too, and names it", async () => {
    const run = await timeWithCpu(
      `${JSON.stringify(process.execPath)} -e "let x = 0; for (let i = 0; i < 3e7; i++) x += i"`,
      repoRoot,
    );
    expect(run.cpuMs).toBeGreaterThan(0);
    expect(run.wallMs).toBeGreaterThan(0);
    const failed = await timeWithCpu("echo nope; exit 4", repoRoot);
    expect(failed.code).toBe(4);
    expect(() => passed(failed, "the command")).toThrow(/the command exited with code 4[\s\S]*nope/);
    expect(passed(run, "the command")).toBe(run);
  });
});
