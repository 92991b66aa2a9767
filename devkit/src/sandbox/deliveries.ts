/**
 * What the control API shows of an event's delivery: the attempts made (delivery records) and the attempts
 * still scheduled (tasks on the clock), read from the task list in one pass for a whole list of events.
 */
import type { components } from "../../generated/sandbox.js";
import type { Task } from "./flows/tasks.ts";
import type { DeliveryRecord, EventRecord } from "./records.ts";

type Schemas = components["schemas"];

/** Scheduled delivery attempts by event id, each list soonest first. */
export function nextAttemptsByEvent(tasks: readonly Task[]): Map<string, Schemas["ScheduledDelivery"][]> {
  const byEvent = new Map<string, (Schemas["ScheduledDelivery"] & { dueMs: number })[]>();
  for (const task of tasks) {
    if (task.kind !== "deliverEvent") continue;
    let list = byEvent.get(task.eventId);
    if (!list) {
      list = [];
      byEvent.set(task.eventId, list);
    }
    list.push({
      endpointId: task.endpointId,
      attempt: task.attempt,
      dueAt: new Date(task.dueAt).toISOString(),
      dueMs: task.dueAt,
    });
  }
  const result = new Map<string, Schemas["ScheduledDelivery"][]>();
  for (const [eventId, list] of byEvent) {
    list.sort((a, b) => a.dueMs - b.dueMs || a.attempt - b.attempt);
    result.set(
      eventId,
      list.map(({ endpointId, attempt, dueAt }) => ({ endpointId, attempt, dueAt })),
    );
  }
  return result;
}

/** The event as the control API shows it: its envelope, every attempt so far, and the attempts still due. */
export function shownEvent(
  event: EventRecord,
  deliveries: DeliveryRecord["delivery"][],
  nextAttempts: Map<string, Schemas["ScheduledDelivery"][]>,
): Schemas["SandboxEvent"] {
  return {
    ...(event.envelope as Schemas["SandboxEvent"]),
    deliveries,
    nextAttempts: nextAttempts.get(event.envelope.id) ?? [],
  };
}
