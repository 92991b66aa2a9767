/**
 * Every flow of the sandbox, and the maps the server and the engine run them by: a handler for each partner
 * operation and each control operation, a runner for each kind of timed task, and the parts the engine is
 * given (`engineParts`). A new flow is a module here: its handlers and its task kinds (their data in tasks.ts,
 * their runners in the flow) join the maps, and the compiler checks each handler has the shape of its operation;
 * test/sandbox/units.test.ts lists every operation without one (the sandbox answers it from the contract's examples).
 */
import type { EventRecord } from "../records.ts";
import { testModeFlow } from "../testmode/control.ts";
import { accounts, seedAccount } from "./accounts.ts";
import { cards } from "./cards.ts";
import type { ControlHandlers, FlowEnv, PartnerHandlers, TaskRunner, TaskRunners } from "./flow.ts";
import { kyb } from "./kyb.ts";
import { ledger } from "./ledger.ts";
import { onboarding } from "./onboarding.ts";
import { routes } from "./routes.ts";
import { sandbox } from "./sandbox.ts";
import type { Task, TaskKinds } from "./tasks.ts";
import { scheduleDeliveries, webhooks } from "./webhooks.ts";

export type { Task, TaskKinds };

export const FLOWS = [accounts, onboarding, kyb, cards, routes, ledger, webhooks, sandbox, testModeFlow];

// Partial: an operation added to the contract without a handler yet is answered from its examples
// (example-answers.ts) and listed by test/sandbox/units.test.ts; each handler present is typed by its operation.
export const PARTNER_HANDLERS: Partial<PartnerHandlers> = {
  ...onboarding.partner,
  ...kyb.partner,
  ...cards.partner,
  ...routes.partner,
  ...ledger.partner,
};

export const CONTROL_HANDLERS: Partial<ControlHandlers> = {
  ...accounts.control,
  ...onboarding.control,
  ...kyb.control,
  ...cards.control,
  ...routes.control,
  ...ledger.control,
  ...webhooks.control,
  ...sandbox.control,
  ...testModeFlow.control,
};

export const TASK_RUNNERS: TaskRunners<TaskKinds> = { ...cards.tasks, ...kyb.tasks, ...webhooks.tasks };

/** What the engine is given of the flows, bound to the sandbox they run in. */
export function engineParts(env: FlowEnv) {
  return {
    run: (task: Task) => (TASK_RUNNERS[task.kind] as TaskRunner<Task>)(env, task),
    seed: (apiKey: string) => seedAccount(env, apiKey),
    fired: (apiKey: string, event: EventRecord) => scheduleDeliveries(env, apiKey, event),
  };
}
