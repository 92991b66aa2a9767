// @ts-check
/** A company's payment routes in the Accounts view: open one, force past verification, deposit on each, its newest deposits. */

import { routeDeposits } from "./accounts-tables.js";
import { as, client, ok } from "./api.js";
import { badge, dataTable, h } from "./dom.js";

/**
 * @typedef {import("./api.js").Schemas} Schemas
 * @typedef {Schemas["AccountCompany"]} Entry
 */

/**
 * The company's payment routes, each with a deposit form and its newest deposits.
 * @param {Entry} entry
 * @param {string} name
 * @param {string} id
 * @param {string} account
 * @param {import("./accounts-company.js").Button} button
 * @param {import("./accounts-company.js").AccountView} view
 */
export function routesSection(entry, name, id, account, button, view) {
  const { forced } = view;
  /** @param {string} id */
  const withForce = (id) => (forced.has(id) ? { force: true } : {});
  const routes = entry.paymentRoutes;
  const headers = as(account);
  /** @param {"onramp" | "offramp"} type */
  const open = (type) => () =>
    client.POST("/_sandbox/companies/{companyId}/payment-routes", {
      params: { path: { companyId: id } },
      headers,
      body: { type, ...withForce(id) },
    });
  /** @type {Map<string, Schemas["RouteDeposit"][]>} */
  const depositsByRoute = new Map();
  for (const deposit of entry.deposits ?? []) {
    const list = depositsByRoute.get(deposit.routeId) ?? [];
    list.push(deposit);
    depositsByRoute.set(deposit.routeId, list);
  }
  return h(
    "div",
    {},
    h(
      "div",
      { class: "row" },
      h("h3", {}, `Payment routes (${routes.length})`),
      button("Open on-ramp route", "route-onramp", `${name}: on-ramp route opened`, open("onramp")),
      button("Open off-ramp route", "route-offramp", `${name}: off-ramp route opened`, open("offramp")),
      h(
        "label",
        {},
        h("input", {
          type: "checkbox",
          checked: forced.has(id),
          dataset: { key: `${id}:force` },
          onchange: (/** @type {Event} */ event) => {
            if (/** @type {HTMLInputElement} */ (event.target).checked) forced.add(id);
            else forced.delete(id);
          },
        }),
        " force (open routes and take deposits although KYC is not approved or the terms not accepted)",
      ),
    ),
    routes.length === 0
      ? null
      : dataTable(
          `Payment routes of ${name}`,
          ["Route", "Type", "Status", "Currency", "Deposit address", "Deposits", "Deposit"],
          routes.map((route) => {
            const routeId = /** @type {string} */ (route.id);
            const amount = h("input", {
              type: "number",
              min: "0.01",
              step: "0.01",
              value: "100",
              required: true,
              "aria-label": `Amount to deposit on route ${routeId}`,
              dataset: { key: `${routeId}:amount` },
              style: "width: 7rem",
            });
            const form = h(
              "form",
              {
                class: "row",
                onsubmit: (/** @type {SubmitEvent} */ event) => {
                  event.preventDefault();
                  const value = Number(/** @type {HTMLInputElement} */ (amount).value);
                  view.act(`${name}: deposit of ${value} on route ${routeId}`, () =>
                    ok(
                      client.POST("/_sandbox/payment-routes/{routeId}/deposits", {
                        params: { path: { routeId } },
                        headers,
                        body: { amount: value, ...withForce(id) },
                      }),
                    ),
                  );
                },
              },
              amount,
              h("button", { type: "submit", dataset: { key: `${routeId}:deposit` } }, "Deposit"),
            );
            const deposits = depositsByRoute.get(routeId) ?? [];
            return h(
              "tr",
              { dataset: { route: routeId } },
              h("td", {}, h("code", {}, routeId)),
              h("td", {}, route.type ?? ""),
              h("td", {}, badge(route.status ?? "–", route.status === "active" ? "ok" : "warn")),
              h("td", {}, route.currency ?? ""),
              h("td", {}, h("code", {}, route.depositAddress ?? "")),
              h("td", { dataset: { deposits: String(deposits.length) } }, routeDeposits(deposits)),
              h("td", {}, form),
            );
          }),
        ),
  );
}
