// @ts-check
/**
 * Events and deliveries: the chosen account's webhook receivers, and every event with its payload, each
 * delivery attempt (clock time, status or network error, duration), the attempts still due and a resend
 * button; filtered by type and outcome. The list is bounded: the newest matching events only.
 */
import { as, client, loadPartnerContract, ok } from "./api.js";
import { every, h, replaceKeepingFocus, showProblem, stopAll } from "./dom.js";
import { drawEvent } from "./events-card.js";
import { drawEndpoints } from "./events-receivers.js";
import { OUTCOMES, outcomeOf } from "./format.js";

const REFRESH_MS = 1500;
/** Events drawn at most; the others are counted, not drawn. */
const MAX_SHOWN = 200;

/**
 * @typedef {import("./events-card.js").SandboxEvent} SandboxEvent
 * @typedef {import("./events-card.js").UrlOf} UrlOf
 */

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
  /** @type {import("./events-card.js").EventView} */
  const view = { urlOf, open, account: () => context.account(), refresh: () => refresh() };

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
      replaceKeepingFocus(endpoints, drawEndpoints(endpointList.webhookEndpoints, account, refresh));
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
    replaceKeepingFocus(list, ...shown.map((event) => drawEvent(event, view)));
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
