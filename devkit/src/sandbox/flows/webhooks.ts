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
import { accountOf, apiKeyOf, defineFlow, notFound, unprocessable } from "../flow.ts";
import { MAX_WEBHOOK_ENDPOINTS } from "../limits.ts";
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

/** Attempts under way to one receiver (by URL) at most; more wait for one of them to end. */
export const MAX_ATTEMPTS_PER_RECEIVER = 4;
/** Attempts under way in the whole sandbox at most. */
export const MAX_ATTEMPTS = 64;

/**
 * The connections the sandbox's deliveries may hold: at most MAX_ATTEMPTS_PER_RECEIVER to one receiver URL and
 * MAX_ATTEMPTS in all, handed out first come, first served among the attempts that fit. A receiver that never
 * answers holds its own few, so only its own events wait.
 */
class DeliverySlots {
  private readonly inUse = new Map<string, number>();
  private total = 0;
  private readonly waiting: { receiver: string; start: () => void }[] = [];

  /**
   * A release function once a slot is free, or undefined when the real time `deadline` passes or `signal`
   * aborts first. Attempts to one receiver get its slots in the order they asked.
   */
  acquire(receiver: string, deadline: number, signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    if (this.fits(receiver) && !this.waiting.some((entry) => entry.receiver === receiver))
      return Promise.resolve(this.take(receiver));
    return new Promise((resolve) => {
      const giveUp = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", giveUp);
        const index = this.waiting.indexOf(entry);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(undefined);
      };
      const entry = {
        receiver,
        start: () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", giveUp);
          resolve(this.take(receiver));
        },
      };
      const timer = setTimeout(giveUp, Math.max(0, deadline - performance.now()));
      signal.addEventListener("abort", giveUp, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Attempts to `receiver` holding a slot. */
  held(receiver: string): number {
    return this.inUse.get(receiver) ?? 0;
  }

  private fits(receiver: string): boolean {
    return this.total < MAX_ATTEMPTS && this.held(receiver) < MAX_ATTEMPTS_PER_RECEIVER;
  }

  private take(receiver: string): () => void {
    this.total++;
    this.inUse.set(receiver, this.held(receiver) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = this.held(receiver) - 1;
      if (left > 0) this.inUse.set(receiver, left);
      else this.inUse.delete(receiver);
      const index = this.waiting.findIndex((entry) => this.fits(entry.receiver));
      if (index >= 0) this.waiting.splice(index, 1)[0]!.start();
    };
  }
}

/** Each sandbox's slots. */
const slotsOf = new WeakMap<SandboxEngine, DeliverySlots>();

/**
 * One attempt, by the webhook kit's sender (`deliverWebhook` with no retries: the sandbox schedules the retries
 * itself, on its clock): the signed POST of the event's exact body, within `timeoutMs` of real time from the
 * moment it was due to start (waiting for a free connection counts); a status code or why there was none.
 */
async function attemptDelivery(
  engine: SandboxEngine,
  url: string,
  body: string,
  secret: string,
  stopping: AbortSignal,
): Promise<{ statusCode?: number; error?: string; durationMs?: number }> {
  const timeoutMs = engine.webhookTimeoutMs;
  const deadline = performance.now() + timeoutMs;
  let slots = slotsOf.get(engine);
  if (!slots) {
    slots = new DeliverySlots();
    slotsOf.set(engine, slots);
  }
  const release = await slots.acquire(url, deadline, stopping);
  // A connection freed in the last tenth of the limit leaves too little time to send in: the attempt gives up,
  // rather than open a connection to a receiver that has just let the others time out.
  const tooLate = deadline - performance.now() < Math.min(timeoutMs / 10, 1_000);
  if (release && tooLate) release();
  if (!release || tooLate)
    return {
      error: `not sent within ${timeoutMs / 1000} s: no free connection (at most ${MAX_ATTEMPTS_PER_RECEIVER} to one receiver and ${MAX_ATTEMPTS} in all are under way at once)`,
    };
  try {
    const left = Math.max(1, Math.ceil(deadline - performance.now()));
    const [attempt] = (await deliverWebhook({ url, body, secret, delaysMs: [], timeoutMs: left, signal: stopping }))
      .attempts;
    // Real milliseconds, to a tenth: what the receiver took, for the events list and the dashboard.
    const timing = attempt === undefined ? {} : { durationMs: Math.round(attempt.ms * 10) / 10 };
    if (attempt?.status !== undefined) return { statusCode: attempt.status, ...timing };
    const error = attempt?.error?.startsWith("no answer within")
      ? `no answer within ${timeoutMs / 1000} s`
      : attempt?.error;
    return { error: error ?? "not sent", ...timing };
  } finally {
    release();
  }
}

/**
 * Where a delivery goes in an event's log: after every attempt made at an earlier time, or at the same time to
 * an endpoint listed earlier (or the same one), so the log reads in clock order whichever attempt ended first.
 */
function insertDelivery(account: AccountState, event: EventRecord, delivery: EventRecord["deliveries"][number]): void {
  const order = (endpointId: string) => {
    const index = account.endpoints.findIndex((e) => e.endpoint.id === endpointId);
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  const at = Date.parse(delivery.at);
  const mine = order(delivery.endpointId);
  let index = event.deliveries.length;
  while (index > 0) {
    const before = event.deliveries[index - 1]!;
    const beforeAt = Date.parse(before.at);
    if (beforeAt < at || (beforeAt === at && order(before.endpointId) <= mine)) break;
    index--;
  }
  event.deliveries.splice(index, 0, delivery);
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
      const account = accountOf(call);
      if (account.endpoints.length >= MAX_WEBHOOK_ENDPOINTS)
        throw unprocessable(
          `the account has ${account.endpoints.length} webhook endpoints, the most the sandbox keeps for one account (${MAX_WEBHOOK_ENDPOINTS}): delete one first`,
        );
      const record = addEndpoint(call.engine, account, url, secret, events);
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
    deliverEvent(engine, task) {
      const account = engine.account(task.apiKey);
      const event = engine.event(account, task.eventId);
      const endpoint = account.endpoints.find((e) => e.endpoint.id === task.endpointId);
      // Gone, or no longer subscribed to the type: the series ends.
      if (!event || !endpoint || !subscribes(endpoint.endpoint, event.envelope.type)) return;
      const wait = RETRY_DELAYS_MS[task.attempt - 1];
      const retryAt = wait === undefined ? undefined : task.dueAt + wait;
      // The attempt runs off the due loop: other tasks (and other receivers' deliveries) never wait for it.
      engine.inBackground(task, retryAt, async (stopping) => {
        const delivery = await attemptDelivery(engine, endpoint.endpoint.url, event.body, endpoint.secret, stopping);
        // Stopped (the task is kept for the next start), or reset meanwhile: nothing to record.
        if (stopping.aborted || engine.state.accounts[task.apiKey] !== account) return;
        insertDelivery(account, event, {
          endpointId: task.endpointId,
          attempt: task.attempt,
          at: new Date(task.dueAt).toISOString(),
          ...delivery,
        });
        engine.changed(task.apiKey, "events", event);
        const ok = delivery.statusCode !== undefined && delivery.statusCode >= 200 && delivery.statusCode < 300;
        // The retry is due its wait after this attempt was due, on the clock, however long the attempt took.
        if (!ok && retryAt !== undefined) {
          const { id: _, ...next } = task;
          engine.schedule({ ...next, attempt: task.attempt + 1, dueAt: retryAt });
        }
      });
    },
  },
});
