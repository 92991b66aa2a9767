// @ts-check
/**
 * One event of the Events view: its type, time and outcome, its outcome at each receiver, its payload, each
 * delivery attempt and the attempts still due, and a button to resend it.
 */
import { as, client, ok } from "./api.js";
import { announce, badge, dataTable, formatDuration, formatTime, h, pretty, showProblem, statusTone } from "./dom.js";
import { OUTCOMES, outcomeOf, receiverOutcomes } from "./format.js";

/**
 * @typedef {import("./api.js").Schemas["SandboxEvent"]} SandboxEvent
 * @typedef {(endpointId: string) => string} UrlOf
 * @typedef {{ urlOf: UrlOf, open: Set<string>, account: () => string | undefined, refresh: () => Promise<void> }} EventView
 */

/** @type {Record<import("./format.js").ReceiverOutcome["outcome"], "ok" | "warn" | "bad">} */
const RECEIVER_TONES = { delivered: "ok", failed: "bad", retrying: "warn", pending: "warn" };

/**
 * One event, its details open when `view.open` holds its id (kept so across redraws).
 * @param {SandboxEvent} event
 * @param {EventView} view
 */
export function drawEvent(event, view) {
  const { urlOf, open } = view;
  const outcome = OUTCOMES[outcomeOf(event)];
  const latest = event.deliveries?.[event.deliveries.length - 1];
  const receivers = receiverOutcomes(event, urlOf);
  const details = h(
    "details",
    { class: "event", open: open.has(event.id), dataset: { event: event.id, type: event.type } },
    h(
      "summary",
      { dataset: { key: `${event.id}:summary` } },
      h("strong", {}, event.type),
      h("span", { class: "muted" }, formatTime(event.createdAt)),
      badge(outcome.label, outcome.tone),
      latest ? h("span", { class: "muted" }, `${event.deliveries.length} attempt(s)`) : null,
      h("code", { class: "muted" }, event.id),
    ),
    receivers.length === 0
      ? null
      : h(
          "ul",
          { class: "plain receivers", "aria-label": "Outcome at each receiver" },
          ...receivers.map((receiver) =>
            h(
              "li",
              { dataset: { receiver: receiver.url, outcome: receiver.outcome } },
              h("code", {}, receiver.url),
              " ",
              badge(
                receiver.outcome === "pending"
                  ? "attempt due"
                  : `${receiver.statusCode ?? receiver.error ?? "no answer"}${receiver.outcome === "retrying" ? ", retry due" : ""}`,
                RECEIVER_TONES[receiver.outcome],
                `${receiver.url}: ${receiver.outcome}${receiver.statusCode !== undefined ? `, status ${receiver.statusCode}` : ""}`,
              ),
            ),
          ),
        ),
    h("h3", {}, "Payload"),
    h("pre", {}, pretty(event.payload)),
    attemptsTable(event, urlOf),
    nextAttempts(event, urlOf),
    h(
      "button",
      {
        type: "button",
        dataset: { key: `${event.id}:resend` },
        onclick: async () => {
          try {
            await ok(
              client.POST("/_sandbox/events/{eventId}/resend", {
                params: { path: { eventId: event.id } },
                headers: as(view.account()),
              }),
            );
            announce(`${event.type} ${event.id} resent`);
            await view.refresh();
          } catch (error) {
            showProblem(error);
          }
        },
      },
      "Resend",
    ),
  );
  details.addEventListener("toggle", () => {
    if (/** @type {HTMLDetailsElement} */ (details).open) open.add(event.id);
    else open.delete(event.id);
  });
  return details;
}

/**
 * @param {SandboxEvent} event
 * @param {UrlOf} urlOf
 */
function attemptsTable(event, urlOf) {
  const deliveries = /** @type {any[]} */ (event.deliveries ?? []);
  if (deliveries.length === 0) return h("p", { class: "muted" }, "No delivery attempt yet.");
  return dataTable(
    "Delivery attempts",
    ["Attempt", "Clock time", "Receiver", "Result", "Duration"],
    deliveries.map((attempt) =>
      h(
        "tr",
        { dataset: { attempt: attempt.attempt } },
        h("td", {}, String(attempt.attempt)),
        h("td", {}, formatTime(attempt.at)),
        h("td", {}, h("code", { title: attempt.endpointId }, urlOf(attempt.endpointId))),
        h(
          "td",
          {},
          attempt.statusCode !== undefined
            ? badge(String(attempt.statusCode), statusTone(attempt.statusCode), `status ${attempt.statusCode}`)
            : badge(attempt.error ?? "no answer", "bad"),
        ),
        h("td", {}, formatDuration(attempt.durationMs)),
      ),
    ),
    { captionShown: true },
  );
}

/**
 * @param {SandboxEvent} event
 * @param {UrlOf} urlOf
 */
function nextAttempts(event, urlOf) {
  const next = /** @type {any[]} */ (event.nextAttempts ?? []);
  if (next.length === 0) return null;
  return h(
    "ul",
    { "aria-label": "Attempts still due" },
    ...next.map((n) =>
      h("li", {}, `Attempt ${n.attempt} to `, h("code", {}, urlOf(n.endpointId)), ` due at ${formatTime(n.dueAt)}`),
    ),
  );
}
