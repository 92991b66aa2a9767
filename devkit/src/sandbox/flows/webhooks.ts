/**
 * Webhooks: the account's receivers, its events with their delivery logs, resending, and delivery itself:
 * each event goes to each endpoint as a task on the clock, retried after 10 s, 30 s, 1 min, 2 min and 5 min
 * while the receiver answers non-2xx or cannot be reached.
 */
import { deliverWebhook, RETRY_DELAYS_MS } from "../../webhooks/deliver.ts";
import type { SandboxEngine } from "../engine.ts";
import { accountOf, apiKeyOf, defineFlow, notFound } from "../flow.ts";
import type { AccountState, EventRecord } from "../state.ts";

export function addEndpoint(engine: SandboxEngine, account: AccountState, url: string, secret: string) {
  const record = { endpoint: { id: engine.random(account).ulid(), url, createdAt: engine.now() }, secret };
  account.endpoints.push(record);
  return record;
}

/** A first delivery of the event to each of the account's endpoints, due now. */
export function scheduleDeliveries(engine: SandboxEngine, apiKey: string, event: EventRecord): void {
  const now = engine.clock.now();
  for (const { endpoint } of engine.state.accounts[apiKey]?.endpoints ?? [])
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
): Promise<{ statusCode?: number; error?: string }> {
  const [attempt] = (await deliverWebhook({ url, body, secret, delaysMs: [] })).attempts;
  if (attempt?.status !== undefined) return { statusCode: attempt.status };
  return { error: attempt?.error ?? "not sent" };
}

/** The event as the control API shows it: its envelope and every delivery attempt so far. */
function shown(event: EventRecord) {
  return { ...event.envelope, deliveries: event.deliveries };
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
      const record = addEndpoint(call.engine, accountOf(call), call.body.url, call.body.secret);
      return { status: 201, body: record.endpoint };
    },

    listWebhookEndpoints(call) {
      return { status: 200, body: { webhookEndpoints: accountOf(call).endpoints.map((e) => e.endpoint) } };
    },

    deleteWebhookEndpoint(call) {
      const account = accountOf(call);
      const id = call.params.endpointId;
      if (!account.endpoints.some((e) => e.endpoint.id === id)) throw notFound("webhook endpoint", id);
      account.endpoints = account.endpoints.filter((e) => e.endpoint.id !== id);
      call.engine.cancel((task) => task.kind === "deliverEvent" && task.endpointId === id);
      return { status: 204 };
    },

    listEvents(call) {
      return { status: 200, body: { events: [...accountOf(call).events].reverse().map(shown) } };
    },

    resendEvent(call) {
      const event = call.engine.event(accountOf(call), call.params.eventId);
      if (!event) throw notFound("event", call.params.eventId);
      scheduleDeliveries(call.engine, apiKeyOf(call), event);
      return { status: 202, body: shown(event) };
    },
  },
  tasks: {
    async deliverEvent(engine, task) {
      const account = engine.account(task.apiKey);
      const event = engine.event(account, task.eventId);
      const endpoint = account.endpoints.find((e) => e.endpoint.id === task.endpointId);
      if (!event || !endpoint) return;
      const delivery = await attemptDelivery(endpoint.endpoint.url, event.body, endpoint.secret);
      event.deliveries.push({
        endpointId: task.endpointId,
        attempt: task.attempt,
        at: new Date(task.dueAt).toISOString(),
        ...delivery,
      });
      const ok = delivery.statusCode !== undefined && delivery.statusCode >= 200 && delivery.statusCode < 300;
      const wait = RETRY_DELAYS_MS[task.attempt - 1];
      if (!ok && wait !== undefined) {
        const { id: _, ...next } = task;
        engine.schedule({ ...next, attempt: task.attempt + 1, dueAt: task.dueAt + wait });
      }
    },
  },
});
