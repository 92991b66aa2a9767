/**
 * Every flow of the sandbox, and the maps the server and the engine run them by: a handler for each partner
 * operation and each control operation, and a runner for each kind of timed task. A new flow is a module
 * here: its handlers and its task kinds (their data in TaskKinds, their runners in the flow) join the maps,
 * and the compiler checks every operation still has exactly one handler of the right shape.
 */
import type { ControlHandlers, PartnerHandlers, TaskBase, TaskRunners } from "../flow.ts";
import { type CardTasks, cards } from "./cards.ts";
import { type KybTasks, kyb } from "./kyb.ts";
import { ledger } from "./ledger.ts";
import { onboarding } from "./onboarding.ts";
import { routes } from "./routes.ts";
import { sandbox } from "./sandbox.ts";
import { type WebhookTasks, webhooks } from "./webhooks.ts";

export const FLOWS = [onboarding, kyb, cards, routes, ledger, webhooks, sandbox];

/** Every kind of timed task, with the data it carries. */
export type TaskKinds = CardTasks & KybTasks & WebhookTasks;

/** A timed transition or a delivery attempt, due at a clock time. Tasks are data, so they persist. */
export type Task = { [K in keyof TaskKinds]: TaskBase & { kind: K } & TaskKinds[K] }[keyof TaskKinds];

export const PARTNER_HANDLERS: PartnerHandlers = {
  ...onboarding.partner,
  ...kyb.partner,
  ...cards.partner,
  ...routes.partner,
  ...ledger.partner,
};

export const CONTROL_HANDLERS: ControlHandlers = {
  ...onboarding.control,
  ...kyb.control,
  ...cards.control,
  ...routes.control,
  ...ledger.control,
  ...webhooks.control,
  ...sandbox.control,
};

export const TASK_RUNNERS: TaskRunners<TaskKinds> = { ...cards.tasks, ...kyb.tasks, ...webhooks.tasks };
