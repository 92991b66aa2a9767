/**
 * verify: a full default run of `partner-api verify` (two accounts, --allow-writes, webhooks through the
 * sandbox's control API) against the local sandbox in its own process, as `npm run sandbox` starts it: the
 * run's wall time, its requests and requests per second. Target: the run under 10 s on this machine (issue 27).
 */
import path from "node:path";
import { verify } from "../devkit/src/conformance/verify.ts";
import { SOURCE_NODE_ARGS } from "../scripts/lib/source.ts";
import type { Benchmark } from "./context.ts";
import { median } from "./harness.ts";
import type { Figure, Ratio } from "./results.ts";
import { type StartedSandbox, startSandboxCommand } from "./sandbox.ts";

/** Issue 27's budget for a full default run against the local sandbox. */
const BUDGET_MS = 10_000;

export const verifyBenchmark: Benchmark = {
  name: "verify",
  title: "verify, a full run against the local sandbox",
  async run({ size, progress, repoRoot }) {
    const runs = size === "full" ? 5 : size === "quick" ? 3 : 1;
    let sandbox: StartedSandbox | undefined;
    try {
      progress("verify: starting the sandbox process (as npm run sandbox)");
      sandbox = await startSandboxCommand(repoRoot, [
        ...SOURCE_NODE_ARGS,
        path.join(repoRoot, "scripts", "sandbox.ts"),
      ]);
      const durations: number[] = [];
      const perSecond: number[] = [];
      let requests = 0;
      let deliveries = 0;
      for (let run = 0; run < runs; run++) {
        // Fresh accounts each run, so every run does the same work.
        const report = await verify({
          baseUrl: sandbox.url,
          apiKey: `bench-verify-a-${run}`,
          otherApiKey: `bench-verify-b-${run}`,
          allowWrites: true,
        });
        if (report.summary.failures > 0)
          throw new Error(
            `verify found ${report.summary.failures} failure(s) in the sandbox: ${report.failures
              .slice(0, 3)
              .map((failure) => `${failure.check} ${failure.operationId}: ${failure.message}`)
              .join("; ")}`,
          );
        durations.push(report.summary.durationMs);
        perSecond.push((report.summary.requests * 1000) / report.summary.durationMs);
        requests = report.summary.requests;
        deliveries = report.summary.deliveries;
        progress(`verify: run ${run + 1}/${runs} in ${Math.round(report.summary.durationMs)} ms`);
      }
      const duration = median(durations);
      const figures: Figure[] = [
        { label: "full default run (two accounts, writes, webhooks), wall time", value: duration, unit: "ms" },
        { label: "requests a run sends", value: requests, unit: "requests" },
        { label: "webhook deliveries a run checks", value: deliveries, unit: "deliveries" },
        { label: "requests per second over the whole run", value: median(perSecond), unit: "requests/s" },
      ];
      const ratios: Ratio[] = [
        { label: "10 s ÷ full run (at least 1: under 10 s)", value: BUDGET_MS / duration, target: 1 },
      ];
      return {
        name: "verify",
        title: "verify, a full run against the local sandbox",
        method: `\`verify({ baseUrl, apiKey, otherApiKey, allowWrites: true })\` (what \`npm run verify -- --base-url … --api-key a --other-api-key b --allow-writes\` runs), ${runs} run(s) with fresh accounts each, against the sandbox in its own process started as \`npm run sandbox\` does; the median wall time from the first request to the report, and requests per second over the whole run (the contract's workflows and the wait for their webhooks included).`,
        figures,
        ratios,
        notes: [
          "The run is sequential by design (each request may need an id an earlier answer gave), so requests per second is bounded by the round trip, not by the sandbox's throughput (see the sandbox benchmark).",
        ],
      };
    } finally {
      await sandbox?.process.stop("SIGTERM");
    }
  },
};
