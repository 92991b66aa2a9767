// @ts-check
/**
 * Words for what the control API answers, shared by the dashboard (this file is served as it is) and the
 * `partner-api sandbox` commands (which import it): a fault's target, effect and reach, a delivery's outcome,
 * an account's name, and the one way times are written (24-hour UTC). No DOM here, so Node runs it too.
 */

/**
 * @typedef {import("../../../generated/sandbox.js").components["schemas"]} Schemas
 * @typedef {Pick<Schemas["Fault"], "status" | "retryAfter" | "delayMs" | "drop" | "malformed">} FaultEffect
 */

/**
 * What a fault strikes: its operation, or its method and path template.
 * @param {Pick<Schemas["Fault"], "operationId" | "method" | "path">} fault
 */
export function faultTarget(fault) {
  return fault.operationId ?? `${fault.method ?? "any method"} ${fault.path ?? ""}`.trimEnd();
}

/**
 * What a fault does to a call, in words; a fault in force (`Fault`) and one applied to a logged call
 * (`FaultApplied`) read the same: "status 503 (Retry-After 5), 200 ms late".
 * @param {FaultEffect} fault
 */
export function faultEffect(fault) {
  return (
    [
      fault.status !== undefined &&
        `status ${fault.status}${fault.retryAfter !== undefined ? ` (Retry-After ${fault.retryAfter})` : ""}`,
      fault.drop && "drop the connection",
      fault.malformed && "malformed body",
      fault.delayMs !== undefined && `${fault.delayMs} ms late`,
    ]
      .filter(Boolean)
      .join(", ") || "no effect"
  );
}

/**
 * How much longer a fault strikes: "1 call(s) left, chance 0.5"; "" for a fault in force until removed.
 * @param {Pick<Schemas["Fault"], "remaining" | "probability">} fault
 */
export function faultReach(fault) {
  return [
    fault.remaining !== undefined && `${fault.remaining} call(s) left`,
    fault.probability !== undefined && `chance ${fault.probability}`,
  ]
    .filter(Boolean)
    .join(", ");
}

/**
 * A fault in force as one line: "fault 01J… (account): listCompanies → status 503; 1 call(s) left; 0 hit(s)".
 * @param {Schemas["Fault"]} fault
 */
export function describeFault(fault) {
  const reach = faultReach(fault);
  return `fault ${fault.id} (${fault.scope}): ${faultTarget(fault)} → ${faultEffect(fault)}${reach ? `; ${reach}` : ""}; ${fault.hits} hit(s)`;
}

/**
 * A time as the dashboard writes every time: 24-hour UTC, "2026-11-23 09:00:00 UTC"; "–" for none, the text
 * itself when it is no time.
 * @param {string | null | undefined} iso
 */
export function formatUtc(iso) {
  if (!iso) return "–";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** What the "advance to" field takes: the same 24-hour UTC writing, the seconds and " UTC" optional. */
const UTC_INPUT = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?(?: ?(?:UTC|Z))?$/i;

/**
 * A time typed the way formatUtc writes it ("2026-11-23 09:00", seconds and " UTC" optional; a T for the space
 * is taken too), as an ISO time; undefined when it is not one.
 * @param {string} text
 */
export function parseUtc(text) {
  const match = UTC_INPUT.exec(text.trim());
  if (!match) return undefined;
  const iso = `${match[1]}T${match[2]}${match[3] ?? ":00"}.000Z`;
  const date = new Date(iso);
  // Date rolls 2026-02-30 over to March: a date that does not round-trip is none.
  return Number.isNaN(date.getTime()) || date.toISOString() !== iso ? undefined : iso;
}

/**
 * An account as people know it: the label its partner set, else the end of its key ("key …f3a9"); the
 * fingerprint only names it where neither is known.
 * @param {Pick<Schemas["SandboxAccount"], "account" | "label" | "keyHint">} account
 */
export function accountName(account) {
  if (account.label) return account.label;
  return `key ${account.keyHint}`;
}

/**
 * @typedef {{ endpointId: string, url: string, outcome: "delivered" | "retrying" | "failed" | "pending",
 *   statusCode?: number, error?: string, attempts: number }} ReceiverOutcome
 */

/**
 * Where an event stands at each receiver it went to (or is due to go to): the latest attempt's result per
 * receiver, whether a retry is still due, in the order the receivers were first tried.
 * @param {Pick<Schemas["SandboxEvent"], "deliveries" | "nextAttempts">} event
 * @param {(endpointId: string) => string} urlOf how a receiver is named: its URL
 * @returns {ReceiverOutcome[]}
 */
export function receiverOutcomes(event, urlOf) {
  /** @type {Map<string, ReceiverOutcome>} */
  const byReceiver = new Map();
  for (const attempt of event.deliveries ?? []) {
    const ok = attempt.statusCode !== undefined && attempt.statusCode >= 200 && attempt.statusCode < 300;
    const known = byReceiver.get(attempt.endpointId);
    byReceiver.set(attempt.endpointId, {
      endpointId: attempt.endpointId,
      url: known?.url ?? urlOf(attempt.endpointId),
      outcome: ok ? "delivered" : "failed",
      ...(attempt.statusCode !== undefined ? { statusCode: attempt.statusCode } : {}),
      ...(attempt.error !== undefined ? { error: attempt.error } : {}),
      attempts: (known?.attempts ?? 0) + 1,
    });
  }
  for (const next of event.nextAttempts ?? []) {
    const known = byReceiver.get(next.endpointId);
    if (known) {
      if (known.outcome === "failed") known.outcome = "retrying";
      // A resend after a success: due again.
      else known.outcome = "pending";
    } else
      byReceiver.set(next.endpointId, {
        endpointId: next.endpointId,
        url: urlOf(next.endpointId),
        outcome: "pending",
        attempts: 0,
      });
  }
  return [...byReceiver.values()];
}

/**
 * The fault a form asks for, as createFault takes it; an error names the field that is wrong.
 * @param {{ operationId: string, effect: string, status: string, retryAfter: string, delayMs: string, times: string, probability: string }} form
 */
export function faultFromForm(form) {
  /** @type {Schemas["CreateFaultRequest"]} */
  const fault = /** @type {any} */ ({ operationId: form.operationId });
  /** @param {string} text @param {string} name */
  const integer = (text, name) => {
    const value = Number(text);
    if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got "${text}"`);
    return value;
  };
  if (!form.operationId) throw new Error("choose the operation the fault strikes");
  if (form.effect === "status") {
    fault.status = integer(form.status, "Status");
    if (form.retryAfter) fault.retryAfter = integer(form.retryAfter, "Retry-After");
  } else if (form.effect === "drop") fault.drop = true;
  else if (form.effect === "malformed") fault.malformed = true;
  if (form.delayMs) fault.delayMs = integer(form.delayMs, "Delay");
  else if (form.effect === "delay") throw new Error("a delay fault needs the delay in milliseconds");
  if (form.times) fault.times = integer(form.times, "Times");
  if (form.probability) {
    const probability = Number(form.probability);
    if (!(probability > 0 && probability <= 1))
      throw new Error(`Probability must be above 0 and at most 1, got "${form.probability}"`);
    fault.probability = probability;
  }
  return fault;
}

/** @typedef {"delivered" | "partial" | "retrying" | "failed" | "pending" | "unsent"} Outcome */

/** @type {Record<Outcome, { label: string, tone: "ok" | "warn" | "bad" | "" }>} */
export const OUTCOMES = {
  delivered: { label: "delivered", tone: "ok" },
  partial: { label: "delivered to some receivers, failed at others", tone: "warn" },
  retrying: { label: "failing, retry due", tone: "warn" },
  failed: { label: "failed", tone: "bad" },
  pending: { label: "attempt due", tone: "warn" },
  unsent: { label: "no receiver", tone: "" },
};

/**
 * Where an event's delivery stands over all its receivers, from each one's outcome (receiverOutcomes): a retry
 * due anywhere is "retrying", an attempt due "pending", then delivered everywhere, failed everywhere, or
 * "partial" (delivered to some and failed for good at others: not just "failed").
 * @param {Pick<Schemas["SandboxEvent"], "deliveries" | "nextAttempts">} event
 * @returns {Outcome}
 */
export function outcomeOf(event) {
  const outcomes = receiverOutcomes(event, (id) => id).map((receiver) => receiver.outcome);
  if (outcomes.length === 0) return "unsent";
  if (outcomes.includes("retrying")) return "retrying";
  if (outcomes.includes("pending")) return "pending";
  if (outcomes.every((outcome) => outcome === "delivered")) return "delivered";
  if (outcomes.every((outcome) => outcome === "failed")) return "failed";
  return "partial";
}

/**
 * Whether a call passes the filters.
 * @param {Schemas["SandboxRequest"]} call
 * @param {{ account: string, text: string, status: string, faulted: boolean, mismatched: boolean }} filter
 */
export function matches(call, filter) {
  if (filter.account && call.account !== filter.account) return false;
  if (filter.text) {
    const text = filter.text.toLowerCase();
    if (!(call.operationId ?? "").toLowerCase().includes(text) && !call.path.toLowerCase().includes(text)) return false;
  }
  if (filter.status) {
    if (filter.status === "dropped") {
      if (call.status !== null) return false;
    } else if (call.status === null || String(call.status)[0] !== filter.status[0]) return false;
  }
  if (filter.faulted && !call.fault) return false;
  if (filter.mismatched && call.contract?.valid !== false) return false;
  return true;
}
