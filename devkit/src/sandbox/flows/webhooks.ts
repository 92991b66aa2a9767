/**
 * Webhooks: the account's receivers with the event types each subscribes to, its events with their delivery
 * logs, resending, and delivery itself: each event goes to each endpoint subscribed to its type as a task on
 * the clock, retried after 10 s, 30 s, 1 min, 2 min and 5 min while the receiver answers non-2xx or cannot be
 * reached.
 */
import { signWebhookPayloadAsync, webhookEventTypes } from "partner-api-client";
import { redactUrlCredentials } from "../../redact.ts";
import { deliverWebhook, RETRY_DELAYS_MS } from "../../webhooks/deliver.ts";
import { nextAttemptsByEvent, shownEvent } from "../deliveries.ts";
import { MAX_WEBHOOK_ENDPOINTS } from "../limits.ts";
import { receiverAgent } from "../receiver-agent.ts";
import { type ReceiverPolicy, receiverUrlRefusal } from "../receivers.ts";
import type { DeliveryRecord, EndpointRecord, EventRecord } from "../records.ts";
import { accountOf, defineFlow, type FlowEnv, notFound, unprocessable } from "./flow.ts";
import type { TaskKinds } from "./tasks.ts";

type Subscriptions = EndpointRecord["endpoint"]["events"];

/** An endpoint of the account, subscribed to `events` (every event type when omitted). */
export function addEndpoint(
  env: FlowEnv,
  apiKey: string,
  url: string,
  secret: string,
  events: Subscriptions = [...webhookEventTypes],
): EndpointRecord {
  const id = env.random(apiKey).ulid();
  return env.store.put("endpoints", {
    id,
    account: apiKey,
    endpoint: { id, url, events, createdAt: env.now() },
    secret,
  });
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

/** An endpoint as the control API shows it: credentials in its URL (a state file of before) redacted. */
function shownEndpoint(endpoint: EndpointRecord["endpoint"]): EndpointRecord["endpoint"] {
  return { ...endpoint, url: redactUrlCredentials(endpoint.url), events: subscriptions(endpoint) };
}

/** The sandbox's rules for a receiver URL (receivers.ts); a 422 naming the field when it breaks one. */
function checkReceiverUrl(env: FlowEnv, url: string): void {
  const why = receiverUrlRefusal(url, policyOf(env));
  if (why !== undefined) throw unprocessable(`url ${why}`);
}

/** The sandbox's receiver policy; a sandbox built without one refuses its base URL's port and private ranges. */
function policyOf(env: FlowEnv): ReceiverPolicy {
  return (
    env.settings.receivers ?? {
      ownPort: () => {
        const port = new URL(env.settings.baseUrl()).port;
        return port === "" ? 80 : Number(port);
      },
      allowPrivate: false,
    }
  );
}

/** Each sandbox's connections to receivers, each name checked where it resolves. */
const agentsOf = new WeakMap<FlowEnv, ReturnType<typeof receiverAgent>>();

/** A first delivery of the event to each of the account's endpoints subscribed to its type, due now. */
export function scheduleDeliveries(env: FlowEnv, apiKey: string, event: EventRecord): void {
  const now = env.reading();
  for (const { endpoint } of env.store.list("endpoints", apiKey))
    if (subscribes(endpoint, event.envelope.type))
      env.schedule({
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
/** Attempts under way for one account at most, while another account's wait. */
export const MAX_ATTEMPTS_PER_ACCOUNT = 4;
/** Attempts under way in the whole sandbox at most, shared first come, first served. */
export const MAX_ATTEMPTS = 64;
/**
 * Past MAX_ATTEMPTS, an account with no attempt under way still gets one, up to this many in all: so however
 * many accounts' receivers hang, another account's first attempt starts at once.
 */
export const MAX_CONNECTIONS = 1_024;

/**
 * The connections the sandbox's deliveries may hold: at most MAX_ATTEMPTS_PER_RECEIVER to one receiver URL,
 * MAX_ATTEMPTS_PER_ACCOUNT for one account and MAX_ATTEMPTS in all, and one more for every account holding none
 * (up to MAX_CONNECTIONS). A freed slot goes to the waiting attempt of the account holding the fewest, first
 * come first served among equals. A receiver that never answers holds its own account's few; only that
 * account's events wait.
 */
class DeliverySlots {
  private readonly byReceiver = new Map<string, number>();
  private readonly byAccount = new Map<string, number>();
  private total = 0;
  private readonly waiting: { account: string; receiver: string; start: () => void }[] = [];

  /**
   * A release function once a slot is free, or undefined when the real time `deadline` passes or `signal`
   * aborts first. Attempts to one receiver get its slots in the order they asked.
   */
  acquire(account: string, receiver: string, deadline: number, signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    if (
      this.fits(account, receiver) &&
      !this.waiting.some((entry) => entry.receiver === receiver || entry.account === account)
    )
      return Promise.resolve(this.take(account, receiver));
    return new Promise((resolve) => {
      const giveUp = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", giveUp);
        const index = this.waiting.indexOf(entry);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(undefined);
      };
      const entry = {
        account,
        receiver,
        start: () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", giveUp);
          resolve(this.take(account, receiver));
        },
      };
      const timer = setTimeout(giveUp, Math.max(0, deadline - performance.now()));
      signal.addEventListener("abort", giveUp, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Attempts to `receiver` holding a slot. */
  held(receiver: string): number {
    return this.byReceiver.get(receiver) ?? 0;
  }

  private heldBy(account: string): number {
    return this.byAccount.get(account) ?? 0;
  }

  private fits(account: string, receiver: string): boolean {
    if (this.held(receiver) >= MAX_ATTEMPTS_PER_RECEIVER) return false;
    const own = this.heldBy(account);
    if (own >= MAX_ATTEMPTS_PER_ACCOUNT) return false;
    return this.total < MAX_ATTEMPTS || (own === 0 && this.total < MAX_CONNECTIONS);
  }

  private take(account: string, receiver: string): () => void {
    this.total++;
    this.byReceiver.set(receiver, this.held(receiver) + 1);
    this.byAccount.set(account, this.heldBy(account) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = this.held(receiver) - 1;
      if (left > 0) this.byReceiver.set(receiver, left);
      else this.byReceiver.delete(receiver);
      const leftOfAccount = this.heldBy(account) - 1;
      if (leftOfAccount > 0) this.byAccount.set(account, leftOfAccount);
      else this.byAccount.delete(account);
      this.startNext();
    };
  }

  /** Starts the waiting attempts that fit now, the account holding the fewest first. */
  private startNext(): void {
    for (;;) {
      let best = -1;
      for (let index = 0; index < this.waiting.length; index++) {
        const entry = this.waiting[index]!;
        if (!this.fits(entry.account, entry.receiver)) continue;
        if (best === -1 || this.heldBy(entry.account) < this.heldBy(this.waiting[best]!.account)) best = index;
        if (this.heldBy(entry.account) === 0) break;
      }
      if (best === -1) return;
      this.waiting.splice(best, 1)[0]!.start();
    }
  }
}

/** Each sandbox's slots. */
const slotsOf = new WeakMap<FlowEnv, DeliverySlots>();

/**
 * One attempt, by the webhook kit's sender (`deliverWebhook` with no retries: the sandbox schedules the retries
 * itself, on its clock): the signed POST of the event's exact body, within `timeoutMs` of real time from the
 * moment it was due to start (waiting for a free connection counts); a status code or why there was none.
 */
async function attemptDelivery(
  env: FlowEnv,
  account: string,
  url: string,
  body: string,
  secret: string,
  stopping: AbortSignal,
): Promise<{ statusCode?: number; error?: string; durationMs?: number }> {
  // Signed (Web Crypto, asynchronous) before the limit starts and before a connection is held.
  const signature = await signWebhookPayloadAsync(body, secret);
  const timeoutMs = env.webhookTimeoutMs;
  const deadline = performance.now() + timeoutMs;
  let slots = slotsOf.get(env);
  if (!slots) {
    slots = new DeliverySlots();
    slotsOf.set(env, slots);
  }
  // Checked again at each delivery: a state file of before, or a sandbox started with other options.
  const refused = receiverUrlRefusal(url, policyOf(env));
  if (refused !== undefined) return { error: `refused: the url ${refused}` };
  let agent = agentsOf.get(env);
  if (!agent) {
    agent = receiverAgent(policyOf(env));
    agentsOf.set(env, agent);
  }
  const release = await slots.acquire(account, url, deadline, stopping);
  // A connection freed in the last tenth of the limit leaves too little time to send in: the attempt gives up,
  // rather than open a connection to a receiver that has just let the others time out.
  const tooLate = deadline - performance.now() < Math.min(timeoutMs / 10, 1_000);
  if (release && tooLate) release();
  if (!release || tooLate)
    return {
      error: `not sent within ${timeoutMs / 1000} s: no free connection (at most ${MAX_ATTEMPTS_PER_RECEIVER} to one receiver, ${MAX_ATTEMPTS_PER_ACCOUNT} for one account and ${MAX_ATTEMPTS} in all are under way at once)`,
    };
  try {
    const left = Math.max(1, Math.ceil(deadline - performance.now()));
    const [attempt] = (
      await deliverWebhook({
        url,
        body,
        secret,
        signature,
        delaysMs: [],
        timeoutMs: left,
        signal: stopping,
        dispatcher: agent,
      })
    ).attempts;
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
 * An event's delivery attempts in clock order: by the time each was due, then (at the same time) by the order
 * of their endpoints (an endpoint deleted since goes last), then in the order they were recorded; so the log
 * reads in clock order whichever attempt ended first.
 */
function deliveriesOf(env: FlowEnv, apiKey: string, eventId: string): DeliveryRecord["delivery"][] {
  const records = env.store.list("deliveries", apiKey, eventId);
  if (records.length < 2) return records.map((record) => record.delivery);
  const order = new Map(env.store.list("endpoints", apiKey).map((record, index) => [record.id, index]));
  const rank = (endpointId: string) => order.get(endpointId) ?? Number.MAX_SAFE_INTEGER;
  return records
    .map((record) => record.delivery)
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || rank(a.endpointId) - rank(b.endpointId));
}

/** The event as the control API shows it, with its deliveries and the attempts still due. */
function shown(env: FlowEnv, event: EventRecord, next: ReturnType<typeof nextAttemptsByEvent>) {
  return shownEvent(event, deliveriesOf(env, event.account, event.id), next);
}

/** The timed work of webhooks. */
export type WebhookTasks = Pick<TaskKinds, "deliverEvent">;

export const webhooks = defineFlow<WebhookTasks>()({
  name: "webhooks",
  partner: {},
  control: {
    createWebhookEndpoint(call) {
      const { url, secret, events } = call.body;
      const apiKey = accountOf(call).id;
      const count = call.env.store.count("endpoints", apiKey);
      if (count >= MAX_WEBHOOK_ENDPOINTS)
        throw unprocessable(
          `the account has ${count} webhook endpoints, the most the sandbox keeps for one account (${MAX_WEBHOOK_ENDPOINTS}): delete one first`,
        );
      checkReceiverUrl(call.env, url);
      const record = addEndpoint(call.env, apiKey, url, secret, events);
      return { status: 201, body: shownEndpoint(record.endpoint) };
    },

    updateWebhookEndpoint(call) {
      const id = call.params.endpointId;
      const record = call.env.store.get("endpoints", accountOf(call).id, id);
      if (!record) throw notFound("webhook endpoint", id);
      if (call.body.url !== undefined) checkReceiverUrl(call.env, call.body.url);
      const endpoint = {
        ...record.endpoint,
        ...(call.body.url !== undefined ? { url: call.body.url } : {}),
        ...(call.body.events !== undefined ? { events: call.body.events } : {}),
      };
      call.env.store.put("endpoints", { ...record, endpoint });
      return { status: 200, body: shownEndpoint(endpoint) };
    },

    listWebhookEndpoints(call) {
      const endpoints = call.env.store.list("endpoints", accountOf(call).id);
      return { status: 200, body: { webhookEndpoints: endpoints.map((e) => shownEndpoint(e.endpoint)) } };
    },

    deleteWebhookEndpoint(call) {
      const apiKey = accountOf(call).id;
      const id = call.params.endpointId;
      if (!call.env.store.get("endpoints", apiKey, id)) throw notFound("webhook endpoint", id);
      call.env.store.delete("endpoints", apiKey, id);
      call.env.cancel(apiKey, (task) => task.kind === "deliverEvent" && task.endpointId === id);
      return { status: 204 };
    },

    listEvents(call) {
      const { env } = call;
      const next = nextAttemptsByEvent(env.pending());
      const events = env.store.list("events", accountOf(call).id);
      const shownEvents = [];
      for (let index = events.length - 1; index >= 0; index--) shownEvents.push(shown(env, events[index]!, next));
      return { status: 200, body: { events: shownEvents } };
    },

    resendEvent(call) {
      const { env } = call;
      const apiKey = accountOf(call).id;
      const event = env.store.get("events", apiKey, call.params.eventId);
      if (!event) throw notFound("event", call.params.eventId);
      scheduleDeliveries(env, apiKey, event);
      return { status: 202, body: shown(env, event, nextAttemptsByEvent(env.pending())) };
    },
  },
  tasks: {
    deliverEvent(env, task) {
      const event = env.store.get("events", task.apiKey, task.eventId);
      const endpoint = env.store.get("endpoints", task.apiKey, task.endpointId);
      // Gone, or no longer subscribed to the type: the series ends.
      if (!event || !endpoint || !subscribes(endpoint.endpoint, event.envelope.type)) return;
      const wait = RETRY_DELAYS_MS[task.attempt - 1];
      const retryAt = wait === undefined ? undefined : task.dueAt + wait;
      const epoch = env.store.epoch;
      // The attempt runs off the due loop: other tasks (and other receivers' deliveries) never wait for it.
      env.inBackground(task, retryAt, async (stopping) => {
        const delivery = await attemptDelivery(
          env,
          task.apiKey,
          endpoint.endpoint.url,
          event.body,
          endpoint.secret,
          stopping,
        );
        // Stopped (the task is kept for the next start), or reset meanwhile: nothing to record.
        if (stopping.aborted || env.store.epoch !== epoch || !env.store.get("events", task.apiKey, task.eventId))
          return;
        env.store.put("deliveries", {
          id: `t${task.id}`,
          account: task.apiKey,
          eventId: task.eventId,
          delivery: {
            endpointId: task.endpointId,
            attempt: task.attempt,
            at: new Date(task.dueAt).toISOString(),
            ...delivery,
          },
        });
        const ok = delivery.statusCode !== undefined && delivery.statusCode >= 200 && delivery.statusCode < 300;
        // The retry is due its wait after this attempt was due, on the clock, however long the attempt took.
        if (!ok && retryAt !== undefined) {
          const { id: _, ...next } = task;
          env.schedule({ ...next, attempt: task.attempt + 1, dueAt: retryAt });
        }
      });
    },
  },
});
