// @ts-check
/**
 * Events and deliveries: the chosen account's webhook receivers, and every event with its payload, each
 * delivery attempt (clock time, status or network error, duration), the attempts still due and a resend
 * button; filtered by type and outcome. The list is bounded: the newest matching events only.
 */
import { as, client, loadPartnerContract, ok } from "./api.js";
import {
  announce,
  badge,
  dataTable,
  every,
  formatDuration,
  formatTime,
  h,
  pretty,
  replaceKeepingFocus,
  showProblem,
  statusTone,
  stopAll,
} from "./dom.js";
import { OUTCOMES, outcomeOf, receiverOutcomes } from "./format.js";

const REFRESH_MS = 1500;
/** Events drawn at most; the others are counted, not drawn. */
const MAX_SHOWN = 200;

/**
 * @typedef {import("./api.js").Schemas["SandboxEvent"]} SandboxEvent
 * @typedef {(endpointId: string) => string} UrlOf
 */

/** @type {Record<import("./format.js").ReceiverOutcome["outcome"], "ok" | "warn" | "bad">} */
const RECEIVER_TONES = { delivered: "ok", failed: "bad", retrying: "warn", pending: "warn" };

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mount(root, context) {
  const typeFilter = /** @type {HTMLSelectElement} */ (
    h("select", { id: "event-type" }, h("option", { value: "" }, "every type"))
  );
  const outcomeFilter = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "event-outcome" },
      h("option", { value: "" }, "every outcome"),
      ...Object.entries(OUTCOMES).map(([value, { label }]) => h("option", { value }, label)),
    )
  );
  const endpoints = h("div", {});
  const list = h("div", { "aria-live": "off" });
  const count = h("p", { class: "muted", role: "status" });
  /** Ids of the events whose details are open, kept across redraws. */
  const open = new Set();
  /** @type {SandboxEvent[]} */
  let events = [];
  /** Receiver URLs by id, from the account's receivers (attempts name receivers by URL). */
  /** @type {Map<string, string>} */
  let endpointUrls = new Map();
  /** @type {UrlOf} */
  const urlOf = (id) => endpointUrls.get(id) ?? `removed receiver ${id}`;
  let seenEvents = "";
  let seenEndpoints = "";

  loadPartnerContract().then(
    (contract) => {
      for (const type of Object.keys(contract.webhooks ?? {}).sort())
        typeFilter.append(h("option", { value: type }, type));
    },
    () => undefined,
  );

  root.append(
    h("h2", {}, "Webhook receivers"),
    endpoints,
    h("h2", {}, "Events"),
    h(
      "div",
      { class: "filters", role: "group", "aria-label": "Filter events" },
      h("label", { for: "event-type" }, "Type "),
      typeFilter,
      h("label", { for: "event-outcome" }, "Outcome "),
      outcomeFilter,
    ),
    count,
    list,
  );
  typeFilter.addEventListener("change", draw);
  outcomeFilter.addEventListener("change", draw);

  async function refresh() {
    const account = context.account();
    if (!account) {
      events = [];
      endpoints.replaceChildren(h("p", { class: "muted" }, "No account has called yet."));
      draw();
      return;
    }
    const [eventList, endpointList] = await Promise.all([
      ok(client.GET("/_sandbox/events", { headers: as(account) })),
      ok(client.GET("/_sandbox/webhook-endpoints", { headers: as(account) })),
    ]);
    const endpointText = JSON.stringify(endpointList);
    if (endpointText !== seenEndpoints) {
      seenEndpoints = endpointText;
      endpointUrls = new Map(endpointList.webhookEndpoints.map((endpoint) => [endpoint.id, endpoint.url]));
      // The events name receivers by URL: drawn again with the new names.
      seenEvents = "";
      replaceKeepingFocus(endpoints, drawEndpoints(endpointList.webhookEndpoints, account));
    }
    const eventText = JSON.stringify(eventList);
    if (eventText !== seenEvents) {
      seenEvents = eventText;
      events = eventList.events;
      draw();
    }
  }

  function draw() {
    const type = typeFilter.value;
    const outcome = outcomeFilter.value;
    const matching = events.filter((e) => (!type || e.type === type) && (!outcome || outcomeOf(e) === outcome));
    const shown = matching.slice(0, MAX_SHOWN);
    count.textContent =
      matching.length === events.length
        ? `${events.length} event${events.length === 1 ? "" : "s"}, newest first`
        : `${matching.length} of ${events.length} events match`;
    if (matching.length > shown.length) count.textContent += ` (the newest ${shown.length} shown)`;
    replaceKeepingFocus(list, ...shown.map(drawEvent));
  }

  /** @param {SandboxEvent} event */
  function drawEvent(event) {
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
                  headers: as(context.account()),
                }),
              );
              announce(`${event.type} ${event.id} resent`);
              await refresh();
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
   * @param {import("./api.js").Schemas["WebhookEndpoint"][]} list
   * @param {string} account
   */
  function drawEndpoints(list, account) {
    const url = h("input", {
      type: "url",
      required: true,
      placeholder: "http://127.0.0.1:4242/webhooks",
      id: "endpoint-url",
    });
    const secret = h("input", { type: "text", required: true, id: "endpoint-secret", value: "whsec_sandbox" });
    const form = h(
      "form",
      {
        class: "inline",
        onsubmit: async (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          try {
            await ok(
              client.POST("/_sandbox/webhook-endpoints", {
                headers: as(account),
                body: {
                  url: /** @type {HTMLInputElement} */ (url).value,
                  secret: /** @type {HTMLInputElement} */ (secret).value,
                },
              }),
            );
            announce("webhook receiver added");
            await refresh();
          } catch (error) {
            showProblem(error);
          }
        },
      },
      h("label", { for: "endpoint-url" }, "Receiver URL", url),
      h("label", { for: "endpoint-secret" }, "Signing secret", secret),
      h("button", { type: "submit" }, "Add receiver"),
    );
    return [
      list.length === 0
        ? h("p", { class: "muted" }, "No receiver: events are recorded but not sent. Add one to see delivery attempts.")
        : dataTable(
            "Webhook receivers",
            ["Receiver", "URL", "Event types", ""],
            list.map((endpoint) =>
              h(
                "tr",
                {},
                h("td", {}, h("code", {}, endpoint.id)),
                h("td", {}, endpoint.url),
                h("td", {}, (endpoint.events ?? ["every type"]).join(", ")),
                h(
                  "td",
                  {},
                  h(
                    "button",
                    {
                      type: "button",
                      "aria-label": `Remove receiver ${endpoint.url}`,
                      dataset: { key: `${endpoint.id}:remove` },
                      onclick: async () => {
                        try {
                          await ok(
                            client.DELETE("/_sandbox/webhook-endpoints/{endpointId}", {
                              params: { path: { endpointId: endpoint.id } },
                              headers: as(account),
                            }),
                          );
                          announce(`receiver ${endpoint.url} removed`);
                          await refresh();
                        } catch (error) {
                          showProblem(error);
                        }
                      },
                    },
                    "Remove",
                  ),
                ),
              ),
            ),
          ),
      form,
    ];
  }

  return stopAll(
    every(REFRESH_MS, refresh),
    context.onAccountChange(() => {
      seenEvents = "";
      seenEndpoints = "";
      refresh().catch(showProblem);
    }),
  );
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
