/**
 * `npm run bench`: measures the client, the webhook kit, the pipeline, the mock, the consumer type-check
 * and the package size side by side, and writes bench/RESULTS.md. See `npm run bench -- --help`.
 */
import path from "node:path";
import { parseBenchArgs, runBenchmarks, USAGE } from "../bench/index.ts";
import { targetMet } from "../bench/results.ts";
import { fail, formatDuration } from "./lib/log.ts";
import { rel, repoRoot } from "./lib/paths.ts";

const started = performance.now();
let options: ReturnType<typeof parseBenchArgs> | undefined;
try {
  options = parseBenchArgs(process.argv.slice(2));
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`, 2);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}

const outFile = path.resolve(options.out ?? path.join(repoRoot, "bench", "RESULTS.md"));
process.stderr.write(
  `bench: size ${options.size}${options.only ? `, only ${options.only.join(", ")}` : ""}; load average ${(
    await import("node:os")
  )
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(" ")}\n`,
);
const summary = await runBenchmarks({
  size: options.size,
  only: options.only,
  outFile,
  repoRoot,
  progress: (message) => process.stderr.write(`  ${message}\n`),
});

for (const outcome of summary.outcomes) {
  const took = formatDuration(outcome.ms);
  if (outcome.error) {
    console.log(`✗ ${outcome.name} failed (${took}): ${outcome.error.split("\n")[0]}`);
    continue;
  }
  const ratios = outcome.result!.ratios.map(
    (r) =>
      `${r.label} ${r.value.toFixed(2)}x${r.target === undefined ? "" : targetMet(r) ? " (target met)" : ` (target ≥ ${r.target}x MISSED)`}`,
  );
  const partial = outcome.result!.errors ?? [];
  console.log(
    `${partial.length > 0 ? "✗" : "✓"} ${outcome.name} (${took})${ratios.length > 0 ? `\n    ${ratios.join("\n    ")}` : ""}`,
  );
  for (const error of partial) console.log(`    failed: ${error.split("\n")[0]}`);
}
const failed = summary.outcomes.filter((o) => o.error || (o.result?.errors?.length ?? 0) > 0).length;
const missed = summary.outcomes.flatMap((o) => o.result?.ratios ?? []).filter((r) => targetMet(r) === false).length;
console.log(
  `wrote ${rel(outFile)}: ${summary.outcomes.length - failed} of ${summary.outcomes.length} benchmarks ran, ${missed} target(s) missed ` +
    `(${formatDuration(performance.now() - started)})`,
);
if (failed > 0) process.exitCode = 1;
