/**
 * Every benchmark of `npm run bench`, and the run that measures them and writes bench/RESULTS.md.
 */
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import { abortSignalsBenchmark } from "./abort-signals.ts";
import { clientBenchmark } from "./client.ts";
import { type Benchmark, createContext } from "./context.ts";
import { dashboardBenchmark } from "./dashboard.ts";
import { deliveriesBenchmark } from "./deliveries.ts";
import { diffBenchmark } from "./diff.ts";
import type { BenchSize } from "./harness.ts";
import { machineInfo } from "./machine.ts";
import { mockBenchmark } from "./mock.ts";
import { mswBenchmark } from "./msw.ts";
import { persistenceBenchmark } from "./persistence.ts";
import { pipelineBenchmark } from "./pipeline.ts";
import { proxyBenchmark } from "./proxy.ts";
import { type BenchOutcome, keptSections, type RunSummary, renderResults, scrubPaths } from "./results.ts";
import { sandboxBenchmark } from "./sandbox.ts";
import { sandboxOverheadBenchmark } from "./sandbox-overhead.ts";
import { sizeBenchmark } from "./size.ts";
import { testsBenchmark } from "./test-timings.ts";
import { typecheckBenchmark } from "./typecheck.ts";
import { verifyBenchmark } from "./verify.ts";
import { webhooksBenchmark } from "./webhooks.ts";

/** In the order they run: the in-process micro-benchmarks first, while the machine is calmest. */
export const BENCHMARKS: readonly Benchmark[] = [
  clientBenchmark,
  webhooksBenchmark,
  abortSignalsBenchmark,
  pipelineBenchmark,
  diffBenchmark,
  mockBenchmark,
  sandboxBenchmark,
  sandboxOverheadBenchmark,
  deliveriesBenchmark,
  persistenceBenchmark,
  verifyBenchmark,
  proxyBenchmark,
  dashboardBenchmark,
  typecheckBenchmark,
  sizeBenchmark,
  mswBenchmark,
  // Last: it runs the whole CI script in a fresh clone (about ten minutes) and loads the machine while it does.
  testsBenchmark,
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
  if (options.outFile) {
    // A run of some benchmarks replaces their sections of the file and keeps every other benchmark's.
    const previous = options.only
      ? await readFile(options.outFile, "utf8").catch((error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return undefined;
          throw error;
        })
      : undefined;
    const names = BENCHMARKS.map((benchmark) => benchmark.name);
    if (previous !== undefined)
      summary.kept = [...keptSections(previous).keys()].filter((name) => !chosen.some((b) => b.name === name));
    const text = renderResults(summary, { ...(previous !== undefined ? { previous } : {}), names });
    await writeFile(options.outFile, scrubPaths(text, options.repoRoot, os.tmpdir(), os.homedir()));
  }
  return summary;
}
