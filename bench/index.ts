/**
 * Every benchmark of `npm run bench`, and the run that measures them and writes bench/RESULTS.md.
 */
import { writeFile } from "node:fs/promises";
import os from "node:os";
import { clientBenchmark } from "./client.ts";
import { type Benchmark, createContext } from "./context.ts";
import { BENCH_SIZES, type BenchSize } from "./harness.ts";
import { machineInfo } from "./machine.ts";
import { mockBenchmark } from "./mock.ts";
import { pipelineBenchmark } from "./pipeline.ts";
import { type BenchOutcome, type RunSummary, renderResults, scrubPaths } from "./results.ts";
import { sizeBenchmark } from "./size.ts";
import { typecheckBenchmark } from "./typecheck.ts";
import { webhooksBenchmark } from "./webhooks.ts";

/** In the order they run: the in-process micro-benchmarks first, while the machine is calmest. */
export const BENCHMARKS: readonly Benchmark[] = [
  clientBenchmark,
  webhooksBenchmark,
  pipelineBenchmark,
  mockBenchmark,
  typecheckBenchmark,
  sizeBenchmark,
];

export interface BenchOptions {
  size: BenchSize;
  /** Names of the benchmarks to run; all when omitted. */
  only?: string[];
  /** Where to write the Markdown; nothing is written when omitted. */
  outFile?: string;
  repoRoot: string;
  progress?: (message: string) => void;
}

export interface CliOptions {
  size: BenchSize;
  only?: string[];
  out?: string;
  help: boolean;
}

export const USAGE = `usage: npm run bench [-- [--quick | --size tiny|quick|full] [--only name[,name…]] [--out file]]
  --quick          fewer rounds (indicative figures, a few minutes)
  --size <size>    tiny (proves each benchmark runs), quick, or full (default: the figures of record)
  --only <names>   run only these benchmarks: ${BENCHMARKS.map((b) => b.name).join(", ")}
  --out <file>     write the results there instead of bench/RESULTS.md`;

/** Parses `npm run bench` arguments; throws an error naming the bad argument. */
export function parseBenchArgs(args: readonly string[]): CliOptions {
  const options: CliOptions = { size: "full", help: false };
  const names = BENCHMARKS.map((b) => b.name);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = (): string => {
      const next = inline ?? args[++i];
      if (next === undefined || next === "" || (inline === undefined && next.startsWith("--")))
        throw new Error(`${flag} needs a value`);
      return next;
    };
    if (flag === "--help" || flag === "-h") options.help = true;
    else if (flag === "--quick") options.size = "quick";
    else if (flag === "--size") {
      const size = value();
      if (!BENCH_SIZES.includes(size as BenchSize))
        throw new Error(`--size must be one of ${BENCH_SIZES.join(", ")}, got "${size}"`);
      options.size = size as BenchSize;
    } else if (flag === "--only") {
      const chosen = value()
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean);
      const unknown = chosen.filter((name) => !names.includes(name));
      if (unknown.length > 0)
        throw new Error(
          `--only: unknown benchmark ${unknown.map((n) => `"${n}"`).join(", ")}; known: ${names.join(", ")}`,
        );
      if (chosen.length === 0) throw new Error("--only needs at least one benchmark name");
      options.only = [...new Set([...(options.only ?? []), ...chosen])];
    } else if (flag === "--out") options.out = value();
    else throw new Error(`unknown argument "${arg}"`);
  }
  return options;
}

/** Runs the chosen benchmarks one after the other; a failing one is recorded and the others still run. */
export async function runBenchmarks(options: BenchOptions): Promise<RunSummary> {
  const machine = machineInfo();
  const progress = options.progress ?? (() => undefined);
  const chosen = options.only ? BENCHMARKS.filter((b) => options.only!.includes(b.name)) : [...BENCHMARKS];
  const context = createContext(options.repoRoot, options.size, progress);
  const started = performance.now();
  const outcomes: BenchOutcome[] = [];
  try {
    for (const [index, benchmark] of chosen.entries()) {
      progress(`[${index + 1}/${chosen.length}] ${benchmark.name}: ${benchmark.title}`);
      const benchStarted = performance.now();
      try {
        const result = await benchmark.run(context);
        outcomes.push({ name: benchmark.name, title: benchmark.title, result, ms: performance.now() - benchStarted });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        progress(`${benchmark.name} failed: ${message.split("\n")[0]}`);
        outcomes.push({
          name: benchmark.name,
          title: benchmark.title,
          error: message,
          ms: performance.now() - benchStarted,
        });
      }
    }
  } finally {
    await context.dispose();
  }
  const summary: RunSummary = {
    machine,
    size: options.size,
    only: options.only,
    totalMs: performance.now() - started,
    outcomes,
  };
  if (options.outFile)
    await writeFile(options.outFile, scrubPaths(renderResults(summary), options.repoRoot, os.tmpdir(), os.homedir()));
  return summary;
}
