/**
 * Every kind of timed task the flows schedule, with the data it carries: one list, so the flows' interface
 * (flow.ts) can name the task union without importing the flows themselves. A new timed kind is a line here
 * and a runner in its flow; the registry (index.ts) fails to compile until the runner is there.
 */
import type { TaskBase } from "../records.ts";

export interface TaskKinds {
  /** Issuing is done: the card turns Active (cards.ts). */
  activateCard: { companyId: string; cardId: string };
  /** The review time has passed: the submission is approved (kyb.ts). */
  finishKybReview: { companyId: string };
  /** One delivery attempt of an event to one endpoint; attempt 1 is the first of a series (webhooks.ts). */
  deliverEvent: { eventId: string; endpointId: string; attempt: number };
}

/** A timed transition or a delivery attempt, due at a clock time. Tasks are data, so they persist. */
export type Task = { [K in keyof TaskKinds]: TaskBase & { kind: K } & TaskKinds[K] }[keyof TaskKinds];

/** A task as it is asked for: everything but the number it is given when scheduled. */
export type TaskRequest<T extends TaskBase = Task> = T extends unknown ? Omit<T, "id"> : never;
