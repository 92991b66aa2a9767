/**
 * The phases of a verify run, named and in the order they run: each one a module of its own (the workflows are
 * flows.ts's, the boundary cases coverage.ts's) acting on the shared run context (run.ts).
 */
import { formatDuration } from "../../common/duration.ts";
import type { Operation } from "../../contract/router.ts";
import { coveragePhase } from "../coverage.ts";
import { flowPhase } from "../flows.ts";
import { isolationPhase } from "./isolation.ts";
import { negativePhase } from "./negative.ts";
import { otherAccountEvent } from "./other-account.ts";
import { positiveRequests } from "./positive.ts";
import type { Run } from "./run.ts";
import { finishWebhooks, startWebhooks } from "./webhooks.ts";
import { wrongMethodPhase } from "./wrong-method.ts";

export interface Phase {
  name: string;
  /** The progress line the phase starts with, if it has one. */
  heading?(run: Run): string | undefined;
  /** `layers`: the partner operations in link order (linkOrder). */
  run(run: Run, layers: readonly Operation[][]): Promise<void>;
}

export const RUN_PHASES: readonly Phase[] = [
  { name: "webhook receivers", run: (run) => startWebhooks(run) },
  {
    name: "workflows",
    heading: () => "• the contract's workflows (openapi/workflows/), every answer of every step judged",
    async run(run) {
      await flowPhase(run);
      if (run.clockAdvancedSeconds > 0)
        run.progress(
          `  the workflows moved the sandbox's clock ${formatDuration(run.clockAdvancedSeconds * 1000)} forward (its clock is shared by every account)`,
        );
    },
  },
  {
    name: "positive requests",
    heading: () => "• positive requests: the contract's examples and generated values, ids chased along its links",
    run: positiveRequests,
  },
  {
    name: "negative requests",
    heading: () => `• negative requests: one part broken, a header missing, no credentials`,
    async run(run, layers) {
      for (const operation of layers.flat()) await negativePhase(run, operation);
    },
  },
  { name: "wrong methods", run: (run, layers) => wrongMethodPhase(run, layers.flat()) },
  {
    name: "coverage",
    async run(run, layers) {
      if (run.options.phases?.has("coverage") ?? true)
        await coveragePhase(run, layers.flat(), run.options.coveragePerOperation);
    },
  },
  {
    name: "account isolation",
    heading: () => `• account isolation`,
    run: (run, layers) => isolationPhase(run, layers.flat()),
  },
  { name: "the other account's event", run: (run, layers) => otherAccountEvent(run, layers.flat()) },
  {
    name: "webhook deliveries",
    heading: (run) => (run.receiver ? `• webhooks` : undefined),
    async run(run) {
      run.deliveries = await finishWebhooks(run);
    },
  },
];

/** Every phase in order; run.deliveries is set once the last has judged the deliveries. */
export async function runPhases(run: Run, layers: readonly Operation[][]): Promise<void> {
  for (const phase of RUN_PHASES) {
    const heading = phase.heading?.(run);
    if (heading !== undefined) run.progress(heading);
    await phase.run(run, layers);
  }
}
