/**
 * Webhooks: the account's receivers with the event types each subscribes to, its events with their delivery
 * logs, resending, and delivery itself: each event goes to each endpoint subscribed to its type as a task on
 * the clock, retried after 10 s, 30 s, 1 min, 2 min and 5 min while the receiver answers non-2xx or cannot be
 * reached.
 */
import { webhookEventTypes } from "partner-api-client";
import { deliverWebhook, RETRY_DELAYS_MS } from "../../webhooks/deliver.ts";
import { nextAttemptsByEvent, shownEvent } from "../deliveries.ts";
import type { SandboxEngine } from "../engine.ts";
import { accountOf, apiKeyOf, defineFlow, notFound } from "../flow.ts";
import type { AccountState, EndpointRecord, EventRecord } from "../state.ts";

type Subscriptions = EndpointRecord["endpoint"]["events"];

/** An endpoint of the account, subscribed to `events` (every event type when omitted). */
export function addEndpoint(
  engine: SandboxEngine,
  account: AccountState,
  url: string,
  secret: string,
  events: Subscriptions = [...webhookEventTypes],
) {
  const record = { endpoint: { id: engine.random(account).ulid(), url, events, createdAt: engine.now() }, secret };
  account.endpoints.push(record);
  engine.changed(account, "endpoints", record);
  return record;
}

/**
 * The event types an endpoint receives. A state file written before endpoints had subscriptions holds none:
 * such an endpoint receives every type, as it did.
 */
function subscriptions(endpoint: EndpointRecord["endpoint"]): Subscriptions {
  return (endpoint.events as Subscriptions | undefined) ?? [...webhookEventTypes];
}

function subscribes(endpoint: EndpointRecord["endpoint"], type: string): boolean {
  return (subscriptions(endpoint) as readonly string[]).includes(type);
}

/** An endpoint as the control API shows it. */
function shownEndpoint(endpoint: EndpointRecord["endpoint"]): EndpointRecord["endpoint"] {
  return { ...endpoint, events: subscriptions(endpoint) };
}

/** A first delivery of the event to each of the account's endpoints subscribed to its type, due now. */
export function scheduleDeliveries(engine: SandboxEngine, apiKey: string, event: EventRecord): void {
  const now = engine.clock.now();
  for (const { endpoint } of engine.state.accounts[apiKey]?.endpoints ?? [])
    if (subscribes(endpoint, event.envelope.type))
      engine.schedule({
        kind: "deliverEvent",
        apiKey,
        dueAt: now,
        eventId: event.envelope.id,
        endpointId: endpoint.id,
        attempt: 1,
      });
}

/**
 * One attempt, by the webhook kit's sender (`deliverWebhook` with no retries: the sandbox schedules the retries
 * itself, on its clock): the signed POST of the event's exact body; a status code or why there was none.
 */
async function attemptDelivery(
  url: string,
  body: string,
  secret: string,
): Promise<{ statusCode?: number; error?: string; durationMs?: number }> {
  const [attempt] = (await deliverWebhook({ url, body, secret, delaysMs: [] })).attempts;
  // Real milliseconds, to a tenth: what the receiver took, for the events list and the dashboard.
  const timing = attempt === undefined ? {} : { durationMs: Math.round(attempt.ms * 10) / 10 };
  if (attempt?.status !== undefined) return { statusCode: attempt.status, ...timing };
  return { error: attempt?.error ?? "not sent", ...timing };
}

/** The timed work of webhooks: the data each kind of task carries. */
export interface WebhookTasks {
  /** One delivery attempt of an event to one endpoint; attempt 1 is the first of a series. */
  deliverEvent: { eventId: string; endpointId: string; attempt: number };
}

export const webhooks = defineFlow<WebhookTasks>()({
  name: "webhooks",
  partner: {},
  control: {
    createWebhookEndpoint(call) {
      const { url, secret, events } = call.body;
      const record = addEndpoint(call.engine, accountOf(call), url, secret, events);
      return { status: 201, body: record.endpoint };
    },

    updateWebhookEndpoint(call) {
      const id = call.params.endpointId;
      const record = accountOf(call).endpoints.find((e) => e.endpoint.id === id);
      if (!record) throw notFound("webhook endpoint", id);
      if (call.body.url !== undefined) record.endpoint.url = call.body.url;
      if (call.body.events !== undefined) record.endpoint.events = call.body.events;
      call.engine.changed(apiKeyOf(call), "endpoints", record);
      return { status: 200, body: shownEndpoint(record.endpoint) };
    },

    listWebhookEndpoints(call) {
      return {
        status: 200,
        body: { webhookEndpoints: accountOf(call).endpoints.map((e) => shownEndpoint(e.endpoint)) },
      };
    },

    deleteWebhookEndpoint(call) {
      const account = accountOf(call);
      const id = call.params.endpointId;
      if (!account.endpoints.some((e) => e.endpoint.id === id)) throw notFound("webhook endpoint", id);
      account.endpoints = account.endpoints.filter((e) => e.endpoint.id !== id);
      call.engine.changed(account, "endpoints");
      call.engine.cancel((task) => task.kind === "deliverEvent" && task.endpointId === id);
      return { status: 204 };
    },

    listEvents(call) {
      const next = nextAttemptsByEvent(call.engine.state.tasks);
      return { status: 200, body: { events: [...accountOf(call).events].reverse().map((e) => shownEvent(e, next)) } };
    },

    resendEvent(call) {
      const event = call.engine.event(accountOf(call), call.params.eventId);
      if (!event) throw notFound("event", call.params.eventId);
      scheduleDeliveries(call.engine, apiKeyOf(call), event);
      return { status: 202, body: shownEvent(event, nextAttemptsByEvent(call.engine.state.tasks)) };
    },
  },
  tasks: {
    async deliverEvent(engine, task) {
      const account = engine.account(task.apiKey);
      const event = engine.event(account, task.eventId);
      const endpoint = account.endpoints.find((e) => e.endpoint.id === task.endpointId);
      // Gone, or no longer subscribed to the type: the series ends.
      if (!event || !endpoint || !subscribes(endpoint.endpoint, event.envelope.type)) return;
      const delivery = await attemptDelivery(endpoint.endpoint.url, event.body, endpoint.secret);
      event.deliveries.push({
        endpointId: task.endpointId,
        attempt: task.attempt,
        at: new Date(task.dueAt).toISOString(),
        ...delivery,
      });
      engine.changed(task.apiKey, "events", event);
      const ok = delivery.statusCode !== undefined && delivery.statusCode >= 200 && delivery.statusCode < 300;
      const wait = RETRY_DELAYS_MS[task.attempt - 1];
      if (!ok && wait !== undefined) {
        const { id: _, ...next } = task;
        engine.schedule({ ...next, attempt: task.attempt + 1, dueAt: task.dueAt + wait });
      }
    },
  },
});
