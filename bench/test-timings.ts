/**
 * The test commands' times: the benchmark `tests` (`npm run bench -- --only tests`, one command) clones the
 * repository's HEAD into a temporary folder, runs `bash .ci/run` there (npm ci, the contract gate, the runtime
 * matrix, `npm run test:all`), then times `npm test` in the same clone from cold (vitest's and tsc's caches removed)
 * and re-run; each figure with its CPU time and the load average around it. RESULTS.md keeps the rows, and the
 * README's sentence is made from them (test/bench/test-timings.test.ts compares the two).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { linkNodeModules } from "../scripts/lib/repo-copy.ts";
import type { Benchmark } from "./context.ts";
import { median } from "./harness.ts";
import type { Figure, Ratio } from "./results.ts";

/** The rows of RESULTS.md that time the test commands (the README's sentence reads them). */
export const FAST_COLD_LABEL = "`npm test`, caches removed first (cold)";
export const FAST_RERUN_LABEL = "`npm test`, an everyday re-run (median)";
export const CI_LABEL = "`bash .ci/run` on a fresh clone";
/** The targets of issue 39, in ms: `npm test` and `bash .ci/run` on a quiet 2-core machine. */
export const FAST_TARGET_MS = 20_000;
export const CI_TARGET_MS = 10 * 60_000;
/** What a cold `npm test` starts without: TypeScript's incremental build info and vitest's caches. */
export const CACHES = [
  "node_modules/.cache/partner-api",
  "node_modules/.experimental-vitest-cache",
  "node_modules/.vite",
];

export interface TimedRun {
  /** The command's exit code (0: it passed). */
  code: number | null;
  wallMs: number;
  /** User + system CPU of the command and every process it waited for. */
  cpuMs: number;
  loadBefore: number;
  loadAfter: number;
  output: string;
}

/**
 * `bash -c '<command>; times'`: the wall time, and the CPU of the children from bash's `times`. A command that fails
 * is still timed (its code says so); one that cannot start rejects.
 */
export function timeWithCpu(command: string, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<TimedRun> {
  return new Promise((resolve, reject) => {
    const loadBefore = os.loadavg()[0]!;
    const started = performance.now();
    const child = spawn("bash", ["-c", `(${command})\nstatus=$?\necho "@times"; times; exit $status`], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => {
      const wallMs = performance.now() - started;
      const output = Buffer.concat(chunks).toString("utf8");
      try {
        resolve({ code, wallMs, cpuMs: childCpuMs(output), loadBefore, loadAfter: os.loadavg()[0]!, output });
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** The children's user + system time from the second line after `@times` (bash's `times`: `0m1.5s 0m0.2s`). */
export function childCpuMs(output: string): number {
  const children = output.split("@times\n")[1]?.split("\n")[1] ?? "";
  const parts = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => (Number(m[1]) * 60 + Number(m[2])) * 1000);
  if (parts.length !== 2) throw new Error(`no CPU times in bash's times output: ${JSON.stringify(children)}`);
  return parts[0]! + parts[1]!;
}

/** vitest's last "Duration 717.20s" (or "1.2s", "950ms") in an output, in ms. */
export function vitestDurationMs(output: string): number | undefined {
  // vitest colours its summary when it may (FORCE_COLOR, a terminal): the escapes go before matching.
  const found = [...stripVTControlCharacters(output).matchAll(/Duration\s+([\d.]+)(ms|s)\b/g)].at(-1);
  if (!found) return undefined;
  return Number(found[1]) * (found[2] === "s" ? 1000 : 1);
}

/** Rejects, with the end of its output, when a run failed. */
export function passed(run: TimedRun, what: string): TimedRun {
  if (run.code === 0) return run;
  const tail = run.output.split("@times\n")[0]!.trim().split("\n").slice(-20).join("\n  ");
  throw new Error(`${what} exited with code ${run.code}; last output:\n  ${tail}`);
}

const load = (run: TimedRun) => `load ${run.loadBefore.toFixed(1)} → ${run.loadAfter.toFixed(1)}`;

export const testsBenchmark: Benchmark = {
  name: "tests",
  title: "The test commands (`npm test`, `bash .ci/run`)",
  async run({ size, repoRoot, progress }) {
    const report: Report = { figures: [], ratios: [], notes: [], errors: [] };
    const scratch = await mkdtemp(path.join(os.tmpdir(), "partner-bench-tests-"));
    try {
      const clone = path.join(scratch, "repo");
      progress(`tests: cloning HEAD into ${clone}`);
      passed(await timeWithCpu(`git clone --quiet --no-hardlinks "${repoRoot}" "${clone}"`, scratch), "git clone");
      // .ci/run expects the steering folder beside the clone, as it is beside the repository.
      const shared = path.join(repoRoot, "..", "shared");
      if (existsSync(shared)) await symlink(shared, path.join(scratch, "shared"));
      if (size !== "full") {
        // Proves the measuring runs, cheaply: the repository's packages linked, one small test file.
        await linkNodeModules(repoRoot, clone, new Set(CACHES.map((cache) => path.basename(cache))));
        const one = passed(await timeWithCpu("npm test -- test/layout/versions.test.ts", clone), "npm test");
        report.figures.push({
          label: "`npm test -- test/layout/versions.test.ts` (one file)",
          value: one.wallMs,
          unit: "ms",
        });
        report.notes.push(
          `\`npm test\` and \`bash .ci/run\` timed only at size full (size "${size}": one file, to prove it runs).`,
        );
      } else await timeCommands(clone, report, progress);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    return { name: this.name, title: this.title, method: METHOD, ...report };
  },
};

const METHOD =
  "A fresh clone of HEAD (committed work only) in a temporary folder: `bash .ci/run` there once (npm ci, the contract " +
  "gate, the runtime matrix, `npm run test:all`), then `npm test` with its caches removed, then three re-runs (median). " +
  "Wall time, and the CPU of every process (bash's `times`), which a loaded machine changes less; the load average " +
  "around each run is in the notes. Targets (issue 39, on a quiet 2-core machine): `npm test` under 20 s, `bash .ci/run` under 10 minutes.";

/** What the benchmark reports, filled in as it goes. */
interface Report {
  figures: Figure[];
  ratios: Ratio[];
  notes: string[];
  errors: string[];
}

/** The full measurement in the clone: `bash .ci/run`, then `npm test` cold and re-run. */
async function timeCommands(clone: string, report: Report, progress: (message: string) => void): Promise<void> {
  const { figures, ratios, notes, errors } = report;
  progress("tests: bash .ci/run in the clone (about 10 minutes)");
  const ci = await timeWithCpu("bash .ci/run", clone);
  // Kept for reading each file's time (vitest prints them); the path is in the progress line.
  const log = path.join(os.tmpdir(), "partner-bench-tests-ci.log");
  await writeFile(log, ci.output);
  progress(`tests: bash .ci/run exited ${ci.code} in ${Math.round(ci.wallMs / 1000)} s; its output: ${log}`);
  if (ci.code !== 0) errors.push(`bash .ci/run exited with code ${ci.code} (timed all the same)`);
  figures.push(
    { label: CI_LABEL, value: ci.wallMs, unit: "ms" },
    { label: `${CI_LABEL}: CPU (user + sys)`, value: ci.cpuMs, unit: "ms" },
  );
  const vitestMs = vitestDurationMs(ci.output);
  if (vitestMs !== undefined)
    figures.push({ label: "of which `npm run test:all`'s vitest (its Duration)", value: vitestMs, unit: "ms" });
  notes.push(`\`bash .ci/run\`: ${load(ci)}.`);
  progress("tests: npm test, cold");
  const cold = await timeWithCpu(`rm -rf ${CACHES.join(" ")} && npm test`, clone);
  const reruns: TimedRun[] = [];
  for (let round = 1; round <= 3; round++) {
    progress(`tests: npm test, re-run ${round}/3`);
    reruns.push(await timeWithCpu("npm test", clone));
  }
  for (const [what, run] of [["cold", cold], ...reruns.map((run, i) => [`re-run ${i + 1}`, run] as const)] as const) {
    if (run.code === 0) continue;
    // Its output kept for reading what failed, as the CI run's is.
    const failedLog = path.join(os.tmpdir(), `partner-bench-tests-npm-test-${what.replace(" ", "-")}.log`);
    await writeFile(failedLog, run.output);
    errors.push(`npm test (${what}) exited with code ${run.code} (timed all the same); its output: ${failedLog}`);
  }
  const rerunMs = median(reruns.map((run) => run.wallMs));
  figures.push(
    { label: FAST_COLD_LABEL, value: cold.wallMs, unit: "ms" },
    { label: `${FAST_COLD_LABEL}: CPU (user + sys)`, value: cold.cpuMs, unit: "ms" },
    { label: FAST_RERUN_LABEL, value: rerunMs, unit: "ms" },
    { label: `${FAST_RERUN_LABEL}: CPU (user + sys)`, value: median(reruns.map((run) => run.cpuMs)), unit: "ms" },
  );
  notes.push(`\`npm test\` cold: ${load(cold)}; re-runs: ${reruns.map(load).join("; ")}.`);
  ratios.push(
    {
      label: `${FAST_TARGET_MS / 1000} s ÷ \`npm test\` re-run (at least 1: under the target)`,
      value: FAST_TARGET_MS / rerunMs,
      target: 1,
    },
    { label: `${FAST_TARGET_MS / 1000} s ÷ \`npm test\` cold`, value: FAST_TARGET_MS / cold.wallMs },
    {
      label: `${CI_TARGET_MS / 60_000} min ÷ \`bash .ci/run\` (at least 1: under the target)`,
      value: CI_TARGET_MS / ci.wallMs,
      target: 1,
    },
  );
}

export interface TestTimings {
  /** The day they were measured (YYYY-MM-DD). */
  date: string;
  /** `npm test` with its caches removed, in ms. */
  fastColdMs: number;
  /** `npm test` re-run, in ms. */
  fastRerunMs: number;
  /** `bash .ci/run` on a fresh clone, in ms. */
  ciMs: number;
}

const number = (text: string) => Number(text.replace(/,/g, ""));

/** The value of the table row whose first cell is exactly `label` (`| label | 1,234 | ms |`), if there is one. */
function rowValue(results: string, label: string): number | undefined {
  for (const line of results.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length >= 4 && cells[1] === label && /^[\d,.]+$/.test(cells[2]!)) return number(cells[2]!);
  }
  return undefined;
}

/** Reads the test commands' times from RESULTS.md's section of the benchmark `tests`; throws naming what is missing. */
export function readTestTimings(results: string): TestTimings {
  const section = results.split(/\n## /).find((part) => rowValue(part, CI_LABEL) !== undefined);
  const cold = section === undefined ? undefined : rowValue(section, FAST_COLD_LABEL);
  const rerun = section === undefined ? undefined : rowValue(section, FAST_RERUN_LABEL);
  const ci = section === undefined ? undefined : rowValue(section, CI_LABEL);
  if (section === undefined || cold === undefined || rerun === undefined || ci === undefined)
    throw new Error(
      `bench/RESULTS.md times neither test command: no rows "${FAST_COLD_LABEL}", "${FAST_RERUN_LABEL}" and "${CI_LABEL}" (npm run bench -- --only tests writes them)`,
    );
  const date =
    /^Measured on (\d{4}-\d{2}-\d{2})/m.exec(section)?.[1] ?? /^\| Date \| (\d{4}-\d{2}-\d{2})/m.exec(results)?.[1];
  if (!date) throw new Error("bench/RESULTS.md: the tests section says no date, and the Machine table has no Date row");
  return { date, fastColdMs: cold, fastRerunMs: rerun, ciMs: ci };
}

const seconds = (ms: number) => Math.round(ms / 1000);

/** The README's words for the times: whole seconds, the CI run to the minute above. */
export function readmeTimingSentence(timings: TestTimings): string {
  return (
    `about ${seconds(timings.fastRerunMs)} s on two cores on a re-run and ${seconds(timings.fastColdMs)} s from cold ` +
    `(\`bash .ci/run\` on a fresh clone: under ${Math.ceil(timings.ciMs / 60_000)} minutes; ` +
    `\`npm run bench -- --only tests\` on ${timings.date})`
  );
}

const README_TIMES = /(<!-- test-timings:[^>]*-->\n)[^\n]*(\n<!-- \/test-timings -->)/;

/**
 * The README with its test-times sentence made from `results` (bench/RESULTS.md's text): what `npm run bench`
 * writes after a run of `tests`, so the README never states a time the benchmark did not measure.
 */
export function readmeWithTimings(readme: string, results: string): string {
  if (!README_TIMES.test(readme))
    throw new Error("README.md has no <!-- test-timings --> … <!-- /test-timings --> block");
  const sentence = readmeTimingSentence(readTestTimings(results));
  return readme.replace(README_TIMES, (_, open: string, close: string) => `${open}${sentence}${close}`);
}
