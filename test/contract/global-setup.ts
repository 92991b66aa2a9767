/**
 * globalSetup of the "contract" vitest project: bundles the contract when stale, starts one Prism behind the mock's
 * front as `partner-api mock` runs them (devkit/src/mock-front.ts: the front answers what Prism cannot, a malformed
 * JSON body among them) on a free loopback port, hands its URL to the tests (`inject("prismUrl")`) and stops both
 * whatever the outcome.
 * Interrupts are covered by devkit/src/prism.ts (signal and exit hooks, and Prism exits when its stdin closes).
 */

import { formatDuration } from "partner-api-devkit/cli";
import type { TestProject } from "vitest/node";
import { startPrismBehindFront } from "../../devkit/src/mock-front.ts";
import { ensureBundle } from "../../scripts/lib/bundle.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the Prism mock serving generated/openapi.yaml, e.g. http://127.0.0.1:41234. */
    prismUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const { written } = await ensureBundle();
  if (written.length > 0) process.stderr.write(`[contract] bundle was stale: wrote ${written.join(" and ")}\n`);
  const echo = process.env.CONTRACT_PRISM_LOG === "1";
  const prism = await startPrismBehindFront({
    onLog: echo ? (line) => process.stderr.write(`[prism] ${line}\n`) : undefined,
  });
  process.stderr.write(
    `[contract] Prism ${prism.url} (pid ${prism.pid}) ready in ${formatDuration(performance.now() - started)}\n`,
  );
  project.provide("prismUrl", prism.url);
  return async () => {
    await prism.stop();
  };
}
