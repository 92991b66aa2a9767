/**
 * `npm run bench`: runs the benchmarks of bench/index.ts (each against the bare thing it wraps) and writes
 * bench/RESULTS.md. See `npm run bench -- --help`.
 */
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  defineCommand,
  describeValue,
  formatDuration,
  isEntryPoint,
  JobFailure,
  main,
  UsageError,
} from "partner-api-devkit/cli";
import { rel, repoRoot } from "../scripts/lib/paths.ts";
import { BENCH_SIZES, type BenchSize } from "./harness.ts";
import { BENCHMARKS, runBenchmarks } from "./index.ts";
import { targetMet } from "./results.ts";
import { readmeWithTimings, testsBenchmark } from "./test-timings.ts";

const names = BENCHMARKS.map((b) => b.name);

function parseSize(quick: boolean | undefined, size: string | undefined): BenchSize {
  if (size === undefined) return quick ? "quick" : "full";
  if (quick) throw new UsageError(`--quick and --size ${size} contradict each other: give one of them`);
  if (!(BENCH_SIZES as readonly string[]).includes(size))
    throw new UsageError(`--size must be one of ${BENCH_SIZES.join(", ")}, got ${describeValue(size)}`);
  return size as BenchSize;
}

function parseOnly(lists: string[] | undefined): string[] | undefined {
  if (lists === undefined) return undefined;
  const chosen = lists.flatMap((list) => list.split(",").map((name) => name.trim())).filter(Boolean);
  const unknown = chosen.filter((name) => !names.includes(name));
  if (unknown.length > 0)
    throw new UsageError(
      `--only: unknown benchmark ${unknown.map(describeValue).join(", ")}; known: ${names.join(", ")}`,
    );
  if (chosen.length === 0) throw new UsageError("--only needs at least one benchmark name");
  return [...new Set(chosen)];
}

export const benchCommand = defineCommand({
  name: "npm run bench --",
  summary: "measure each part against the bare thing it wraps and write bench/RESULTS.md",
  usage: `Usage: npm run bench [-- [--quick | --size tiny|quick|full] [--only name[,name…]] [--out file]]

Options:
  --quick          fewer rounds (indicative figures, a few minutes)
  --size <size>    tiny (proves each benchmark runs), quick, or full (default: the figures of record)
  --only <names>   run only these benchmarks (repeatable): ${names.join(", ")}; their sections of the
                   file are replaced, every other benchmark's kept
  --out <file>     write the results there instead of bench/RESULTS.md

Exit codes: 0 every benchmark ran, 1 one of them failed (the others still run), 2 bad input, 3 a bug.`,
  options: {
    quick: { type: "boolean" },
    size: { type: "string" },
    only: { type: "string", multiple: true },
    out: { type: "string" },
  },
  async run({ values, io }) {
    const size = parseSize(values.quick, values.size);
    const only = parseOnly(values.only);
    const outFile = path.resolve(values.out ?? path.join(repoRoot, "bench", "RESULTS.md"));
    const load = os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(" ");
    io.err(`bench: size ${size}${only ? `, only ${only.join(", ")}` : ""}; load average ${load}`);
    const summary = await runBenchmarks({
      size,
      only,
      outFile,
      repoRoot,
      progress: (message) => io.err(`  ${message}`),
    });
    for (const outcome of summary.outcomes) {
      const took = formatDuration(outcome.ms);
      if (outcome.error) {
        io.out(`✗ ${outcome.name} failed (${took}): ${outcome.error.split("\n")[0]}`);
        continue;
      }
      const ratios = outcome.result!.ratios.map(
        (r) =>
          `${r.label} ${r.value.toFixed(2)}x${r.target === undefined ? "" : targetMet(r) ? " (target met)" : ` (target ≥ ${r.target}x MISSED)`}`,
      );
      const partial = outcome.result!.errors ?? [];
      io.out(
        `${partial.length > 0 ? "✗" : "✓"} ${outcome.name} (${took})${ratios.length > 0 ? `\n    ${ratios.join("\n    ")}` : ""}`,
      );
      for (const error of partial) io.out(`    failed: ${error.split("\n")[0]}`);
    }
    // The README's sentence on the test commands' times is made from the figures just written.
    const timed = summary.outcomes.some((o) => o.name === testsBenchmark.name && o.result);
    if (timed && values.out === undefined) {
      const readme = path.join(repoRoot, "README.md");
      await writeFile(readme, readmeWithTimings(await readFile(readme, "utf8"), await readFile(outFile, "utf8")));
      io.err("  wrote README.md's test times from bench/RESULTS.md");
    }
    const failed = summary.outcomes.filter((o) => o.error || (o.result?.errors?.length ?? 0) > 0).length;
    const missed = summary.outcomes.flatMap((o) => o.result?.ratios ?? []).filter((r) => targetMet(r) === false).length;
    const kept = summary.kept?.length ? `, ${summary.kept.length} other benchmark(s) kept from the file` : "";
    const what = `wrote ${rel(outFile)}: ${summary.outcomes.length - failed} of ${summary.outcomes.length} benchmarks ran, ${missed} target(s) missed${kept}`;
    if (failed > 0) throw new JobFailure(what);
    return what;
  },
});

if (isEntryPoint(import.meta.url)) await main(benchCommand);
