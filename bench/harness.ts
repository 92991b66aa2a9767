/**
 * The measuring core of `npm run bench`: alternating rounds, medians and ratios.
 *
 * Why our own loop and not tinybench's: tinybench times every single call with `performance.now()`. For
 * calls of one to a few microseconds (an HMAC of 256 bytes, a client call against a stub `fetch`) that
 * timer's own cost is a large share of each sample, and it is the same for both sides, so it pulls every
 * ratio towards 1 and would flatter a slow candidate. Here a round times a batch of calls with one pair of
 * clock reads, and the candidates take turns round by round (A B, B A, A B, …) in one process, so drift of
 * the machine (other work, CPU frequency, GC) lands on all of them alike.
 */
import { spawn } from "node:child_process";

/** How much work a run does: `tiny` proves the code runs (tests), `quick` is indicative, `full` is the record. */
export type BenchSize = "tiny" | "quick" | "full";
export const BENCH_SIZES: readonly BenchSize[] = ["tiny", "quick", "full"];

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The value below which `p` percent of `values` lie (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error("percentile of no values");
  if (!(p > 0 && p <= 100)) throw new Error(`percentile must be in (0, 100], got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The order candidates run in during round `round`: rotated each round, so none is always first. */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** Rounds and batch length of an in-process micro-benchmark (calls of microseconds) at each size. */
export function microBenchRounds(size: BenchSize): { rounds: number; targetBatchMs: number } {
  return size === "full"
    ? { rounds: 21, targetBatchMs: 25 }
    : size === "quick"
      ? { rounds: 7, targetBatchMs: 10 }
      : { rounds: 1, targetBatchMs: 1 };
}

export type Operation = () => unknown;

export interface AlternatingOptions {
  /** Named candidates; every one runs the same number of calls per round. */
  candidates: Record<string, Operation>;
  /** Measured rounds (after `warmupRounds` unmeasured ones). */
  rounds: number;
  warmupRounds?: number;
  /** Calls per candidate per round; when omitted, calibrated so the slowest candidate takes `targetBatchMs`. */
  batch?: number;
  targetBatchMs?: number;
  /** Await each call's result (for async candidates). */
  async?: boolean;
  onRound?: (round: number, rounds: number) => void;
  /** The clock, in nanoseconds: `process.hrtime.bigint` unless a test gives one it drives. */
  clock?: () => bigint;
}

export interface CandidateStats {
  /** Calls per second of each measured round. */
  samples: number[];
  medianOpsPerSecond: number;
  /** Median time of one call, in nanoseconds. */
  medianNsPerOp: number;
}

export interface AlternatingResult {
  batch: number;
  rounds: number;
  stats: Record<string, CandidateStats>;
  /** Paired ratio of calls/s, `a / b`: the median over rounds of (a's calls/s in the round ÷ b's). */
  ratio(a: string, b: string): number;
}

// Results flow here so that no call can be optimised away as dead code.
let sink = 0;
function consume(value: unknown): void {
  if (value === true || (typeof value === "object" && value !== null)) sink++;
}
/** Read by the tests: proves the candidates ran. */
export function sinkCount(): number {
  return sink;
}

async function timeBatch(
  operation: Operation,
  calls: number,
  isAsync: boolean,
  clock: () => bigint = process.hrtime.bigint,
): Promise<number> {
  const started = clock();
  if (isAsync) {
    for (let i = 0; i < calls; i++) consume(await operation());
  } else {
    for (let i = 0; i < calls; i++) consume(operation());
  }
  return Number(clock() - started);
}

/** A programming check on the harness's own arguments (not user input, which cli.ts checks). */
function assertCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
}

/** Runs the candidates in alternating rounds of equal batches; returns calls/s per round, medians and paired ratios. */
export async function compareAlternating(options: AlternatingOptions): Promise<AlternatingResult> {
  const names = Object.keys(options.candidates);
  if (names.length < 1) throw new Error("compareAlternating needs at least one candidate");
  assertCount("rounds", options.rounds);
  const isAsync = options.async ?? false;
  const clock = options.clock ?? process.hrtime.bigint;
  let batch = options.batch;
  if (batch === undefined) {
    // Calibrate on the slowest candidate, after a first pass that loads and compiles the code.
    const targetNs = (options.targetBatchMs ?? 20) * 1e6;
    let slowest = 1;
    for (const name of names) {
      await timeBatch(options.candidates[name]!, 10, isAsync, clock);
      slowest = Math.max(slowest, (await timeBatch(options.candidates[name]!, 50, isAsync, clock)) / 50);
    }
    batch = Math.max(1, Math.round(targetNs / slowest));
  }
  assertCount("batch", batch);
  const warmup = options.warmupRounds ?? 1;
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < warmup + options.rounds; round++) {
    for (const name of roundOrder(names, round)) {
      const ns = await timeBatch(options.candidates[name]!, batch, isAsync, clock);
      if (round >= warmup) samples[name]!.push((batch * 1e9) / Math.max(ns, 1));
    }
    if (round >= warmup) options.onRound?.(round - warmup + 1, options.rounds);
  }
  const stats: Record<string, CandidateStats> = {};
  for (const name of names) {
    const medianOps = median(samples[name]!);
    stats[name] = { samples: samples[name]!, medianOpsPerSecond: medianOps, medianNsPerOp: 1e9 / medianOps };
  }
  return {
    batch,
    rounds: options.rounds,
    stats,
    ratio(a, b) {
      const sa = samples[a];
      const sb = samples[b];
      if (!sa || !sb) throw new Error(`no candidate named "${!sa ? a : b}"; candidates: ${names.join(", ")}`);
      return median(sa.map((value, i) => value / sb[i]!));
    },
  };
}

export interface CommandSpec {
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Give up (and fail) after this long. */
  timeoutMs?: number;
}

export interface CommandRun {
  ms: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end and returns its wall time; throws, with the end of its output, when it fails. */
export function timeCommand(label: string, spec: CommandSpec): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timeoutMs = spec.timeoutMs ?? 10 * 60_000;
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`${label}: cannot start ${spec.command}: ${error.message}`));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (code === 0) return resolve({ ms, stdout, stderr });
      const how =
        signal === "SIGKILL" && ms >= timeoutMs
          ? `timed out after ${timeoutMs / 1000} s`
          : signal
            ? `died of ${signal}`
            : `exited with code ${code}`;
      const tail = (stdout + stderr).trim().split("\n").slice(-15).join("\n  ");
      reject(new Error(`${label} (${[spec.command, ...spec.args].join(" ")}) ${how}; last output:\n  ${tail}`));
    });
  });
}

/** Wall time of each command, run in alternating rounds; median milliseconds per command. */
export async function compareCommands(
  commands: Record<string, CommandSpec>,
  rounds: number,
  onRun?: (label: string, round: number, rounds: number, ms: number) => void,
): Promise<Record<string, { samples: number[]; medianMs: number }>> {
  assertCount("rounds", rounds);
  const names = Object.keys(commands);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const name of roundOrder(names, round)) {
      const { ms } = await timeCommand(name, commands[name]!);
      samples[name]!.push(ms);
      onRun?.(name, round + 1, rounds, ms);
    }
  }
  return Object.fromEntries(names.map((name) => [name, { samples: samples[name]!, medianMs: median(samples[name]!) }]));
}
