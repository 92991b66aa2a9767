// @ts-check
/**
 * Accounts: the chosen account's companies, each with its onboarding, verification (KYC), terms and KYB
 * steps and the buttons that move them (the control API's own operations), its cards (their status
 * updates live), payment routes with a deposit form, wallets and the newest ledger entries.
 */
import { as, client, enumOf, ok } from "./api.js";
import { announce, badge, dataTable, every, formatTime, h, replaceKeepingFocus, showProblem, stopAll } from "./dom.js";

/** How often the view reads the account again (a card turns Active on the clock, not on a click). */
const REFRESH_MS = 1000;
/** Marked once the first account is drawn. */
const READY_MARK = "dashboard:ready";
/** Ledger entries and deposits shown per company (the newest). */
const LEDGER_ROWS = 10;
/** Deposits listed under each route (the newest). */
const ROUTE_DEPOSITS = 5;

/**
 * @typedef {import("./api.js").Schemas} Schemas
 * @typedef {Schemas["AccountOverview"]} Overview
 * @typedef {Schemas["AccountCompany"]} Entry
 */

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mount(root, context) {
  const body = h("div", { "aria-busy": "true" }, h("p", { class: "muted" }, "Reading the account…"));
  const labelBox = h("div", {});
  root.append(labelBox, body);
  let seen = "";
  let labelled = "";
  /** @type {string[]} */
  let kycStatuses = [];
  enumOf("KycStatus").then(
    (values) => {
      kycStatuses = values;
      seen = "";
    },
    () => undefined,
  );

  /** Companies whose route and deposit buttons skip the API's verification rule (`force`). */
  const forced = new Set();
  /** @param {string} id */
  const withForce = (id) => (forced.has(id) ? { force: true } : {});

  async function refresh() {
    const account = context.account();
    if (!account) {
      if (!context.accountsLoaded()) return;
      if (seen !== "none") {
        seen = "none";
        labelled = "";
        labelBox.replaceChildren();
        replaceKeepingFocus(body, noAccount());
      }
      body.removeAttribute("aria-busy");
      return;
    }
    const overview = await ok(client.GET("/_sandbox/accounts/{account}", { params: { path: { account } } }));
    // The name form is drawn once per account, so a redraw of the account never loses what is being typed.
    if (labelled !== account) {
      labelled = account;
      labelBox.replaceChildren(labelForm(account));
    }
    const text = JSON.stringify(overview);
    if (text === seen) return;
    seen = text;
    replaceKeepingFocus(body, render(overview));
    body.removeAttribute("aria-busy");
    // The page's load time as bench/dashboard.ts measures it: until the first account is drawn.
    if (performance.getEntriesByName(READY_MARK).length === 0) performance.mark(READY_MARK);
  }

  /**
   * Runs a control call for a button, says what it did, and reads the account again.
   * @param {string} what
   * @param {() => Promise<unknown>} call
   */
  async function act(what, call) {
    try {
      await call();
      announce(what);
      await refresh();
      context.refreshAccounts().catch(() => undefined);
    } catch (error) {
      showProblem(error);
    }
  }

  /** @param {Overview} overview */
  function render(overview) {
    const companies = overview.companies;
    return [
      h(
        "p",
        { class: "muted" },
        `${context.nameOf(overview.account)} (`,
        h("code", {}, overview.account),
        `): ${companies.length} compan${companies.length === 1 ? "y" : "ies"}. `,
        "Buttons call the control API as this account; a partner API call with its key shows here within a second.",
      ),
      ...companies.map((entry) => companyCard(entry, overview.account)),
    ];
  }

  /**
   * The form that names the account (its label, shown in the header's picker instead of its key's end).
   * @param {string} account
   */
  function labelForm(account) {
    const input = /** @type {HTMLInputElement} */ (
      h("input", {
        id: "account-label",
        type: "text",
        maxlength: "60",
        placeholder: "e.g. Checkout team",
        value: context.labelOf(account) ?? "",
        dataset: { key: "account-label" },
      })
    );
    return h(
      "form",
      {
        class: "row",
        "aria-label": "Name this account",
        onsubmit: (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          const label = input.value.trim() || null;
          act(label ? `account named ${label}` : "account label removed", async () => {
            await ok(client.PATCH("/_sandbox/accounts/{account}", { params: { path: { account } }, body: { label } }));
            await context.refreshAccounts();
          });
        },
      },
      h("label", { for: "account-label" }, "Account name"),
      input,
      h("button", { type: "submit", dataset: { key: "account-label-save" } }, "Save name"),
    );
  }

  /**
   * @param {Entry} entry
   * @param {string} account
   */
  function companyCard(entry, account) {
    const company = entry.company;
    const id = /** @type {string} */ (company.id);
    const name = company.name ?? id;
    const headingId = `company-${id}`;
    const headers = as(account);
    const companyPath = { params: { path: { companyId: id } }, headers };
    /**
     * A button that runs a control call as the account.
     * @param {string} label
     * @param {string} key
     * @param {string} what
     * @param {() => Promise<{ response: Response }>} send
     */
    const button = (label, key, what, send) =>
      h(
        "button",
        { type: "button", dataset: { key: `${id}:${key}` }, onclick: () => act(what, () => ok(send())) },
        label,
      );
    /** @param {Schemas["SetOnboardingStatusRequest"]} body */
    const onboarding = (body) => () =>
      client.POST("/_sandbox/companies/{companyId}/onboarding-status", { ...companyPath, body });
    /** @param {Schemas["SetKycStatusRequest"]} body */
    const kyc = (body) => () => client.POST("/_sandbox/companies/{companyId}/kyc-status", { ...companyPath, body });
    /** @param {Schemas["SetTermsAcceptedRequest"]} body */
    const terms = (body) => () =>
      client.POST("/_sandbox/companies/{companyId}/terms-acceptance", { ...companyPath, body });
    /** @param {Schemas["SetKybResultRequest"]} body */
    const kyb = (body) => () => client.POST("/_sandbox/companies/{companyId}/kyb-result", { ...companyPath, body });

    const swap = company.swap;
    const kycSelect = h(
      "select",
      { "aria-label": `KYC status to set for ${name}`, dataset: { key: `${id}:kyc-select` } },
      ...kycStatuses.map((status) => h("option", { value: status, selected: status === swap?.kycStatus }, status)),
    );
    const steps = h(
      "div",
      { class: "steps" },
      step(
        "Onboarding",
        badge(company.status ?? "–", company.status === "Active" ? "ok" : "warn"),
        button(
          "Set Active",
          "onboarding-active",
          `${name}: onboarding set to Active`,
          onboarding({ status: "Active" }),
        ),
        button(
          "Set Pending",
          "onboarding-pending",
          `${name}: onboarding set to Pending`,
          onboarding({ status: "Pending" }),
        ),
      ),
      swap
        ? step(
            "Verification (KYC)",
            badge(
              swap.kycStatus ?? "–",
              swap.kycStatus === "approved" ? "ok" : swap.kycStatus === "rejected" ? "bad" : "warn",
            ),
            button("Approve KYC", "kyc-approve", `${name}: KYC approved`, kyc({ kycStatus: "approved" })),
            button("Reject KYC", "kyc-reject", `${name}: KYC rejected`, kyc({ kycStatus: "rejected" })),
            kycStatuses.length > 0
              ? h(
                  "span",
                  { class: "row" },
                  kycSelect,
                  h(
                    "button",
                    {
                      type: "button",
                      dataset: { key: `${id}:kyc-set` },
                      onclick: () =>
                        act(`${name}: KYC set to ${/** @type {HTMLSelectElement} */ (kycSelect).value}`, () =>
                          ok(
                            kyc({
                              kycStatus: /** @type {Schemas["KycStatus"]} */ (
                                /** @type {HTMLSelectElement} */ (kycSelect).value
                              ),
                            })(),
                          ),
                        ),
                    },
                    "Set KYC",
                  ),
                )
              : null,
          )
        : step("Verification (KYC)", h("span", { class: "muted" }, "not onboarded with Swap")),
      swap
        ? step(
            "Terms",
            badge(swap.tosAccepted ? "accepted" : "not accepted", swap.tosAccepted ? "ok" : "warn"),
            swap.tosAccepted
              ? button("Withdraw terms", "terms-withdraw", `${name}: terms not accepted`, terms({ tosAccepted: false }))
              : button("Accept terms", "terms-accept", `${name}: terms accepted`, terms({ tosAccepted: true })),
          )
        : null,
      step(
        "Business verification (KYB)",
        badge(
          entry.kybStatus ?? "not submitted",
          entry.kybStatus === "APPROVED" ? "ok" : entry.kybStatus ? "warn" : "",
        ),
        button("Approve KYB", "kyb-approve", `${name}: KYB approved`, kyb({ status: "APPROVED" })),
        button("Reject KYB", "kyb-reject", `${name}: KYB rejected`, kyb({ status: "REJECTED" })),
      ),
    );

    return h(
      "article",
      { class: "card", "aria-labelledby": headingId, dataset: { company: id } },
      h("h2", { id: headingId }, name),
      h(
        "p",
        { class: "muted" },
        h("code", {}, id),
        ` · ${company.countryCode ?? ""} · created ${formatTime(company.createdAt)}`,
      ),
      steps,
      cardsTable(entry.cards, name),
      routesSection(entry, name, id, account, button),
      walletsTable(entry.wallets, name),
      moneyTable(entry, name),
    );
  }

  /**
   * The company's payment routes, each with a deposit form and its newest deposits.
   * @param {Entry} entry
   * @param {string} name
   * @param {string} id
   * @param {string} account
   * @param {(label: string, key: string, what: string, send: () => Promise<{ response: Response }>) => HTMLElement} button
   */
  function routesSection(entry, name, id, account, button) {
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
                    act(`${name}: deposit of ${value} on route ${routeId}`, () =>
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

  return stopAll(
    every(REFRESH_MS, refresh),
    context.onAccountChange(() => {
      seen = "";
      refresh().catch(showProblem);
    }),
  );
}

function noAccount() {
  const example = `curl -H 'X-API-Key: sandbox' ${location.origin}/v1/companies`;
  return h(
    "div",
    {},
    h("p", {}, "No account has called the sandbox yet. Every X-API-Key value is its own account, seeded on first use:"),
    h("pre", {}, example),
  );
}

/**
 * @param {string} title
 * @param {...(Node | null)} parts
 */
function step(title, ...parts) {
  return h(
    "div",
    { class: "step", role: "group", "aria-label": title },
    h("h4", {}, title),
    h("div", { class: "row" }, ...parts),
  );
}

/**
 * @param {any[]} cards
 * @param {string} name
 */
function cardsTable(cards, name) {
  return h(
    "div",
    {},
    h("h3", {}, `Cards (${cards.length})`),
    cards.length === 0
      ? h("p", { class: "muted" }, "No cards yet (createCard with this account's key issues one).")
      : dataTable(
          `Cards of ${name}`,
          ["Card", "Name", "Brand", "Last 4", "Holder", "Status", "Created"],
          cards.map((card) =>
            h(
              "tr",
              { dataset: { card: card.id } },
              h("td", {}, h("code", {}, card.id)),
              h("td", {}, card.name ?? ""),
              h("td", {}, card.brand ?? ""),
              h("td", {}, card.last4 ?? ""),
              h("td", {}, card.cardholder?.name ?? ""),
              h("td", {}, badge(card.status ?? "–", card.status === "Active" ? "ok" : "warn")),
              h("td", {}, formatTime(card.createdAt)),
            ),
          ),
        ),
  );
}

/**
 * @param {any[]} wallets
 * @param {string} name
 */
function walletsTable(wallets, name) {
  return h(
    "details",
    {},
    h("summary", {}, `Wallets (${wallets.length})`),
    dataTable(
      `Wallets of ${name}`,
      ["Wallet", "Currency", "Default chain", "Chains"],
      wallets.map((wallet) =>
        h(
          "tr",
          {},
          h("td", {}, h("code", {}, wallet.id)),
          h("td", {}, wallet.currency),
          h("td", {}, wallet.defaultChain),
          h("td", {}, (wallet.chains ?? []).join(", ")),
        ),
      ),
    ),
  );
}

/**
 * A route's deposits: how many, and the newest few with their amounts and times.
 * @param {Schemas["RouteDeposit"][]} deposits newest first
 */
function routeDeposits(deposits) {
  if (deposits.length === 0) return h("span", { class: "muted" }, "none yet");
  const count = deposits.length === 100 ? "100+" : String(deposits.length);
  return h(
    "details",
    {},
    h("summary", {}, `${count} deposit${deposits.length === 1 ? "" : "s"}`),
    h(
      "ul",
      { class: "plain" },
      ...deposits
        .slice(0, ROUTE_DEPOSITS)
        .map((d) =>
          h("li", {}, `${d.transaction.amount} ${d.transaction.currency} · ${formatTime(d.transaction.createdAt)}`),
        ),
    ),
  );
}

/**
 * The company's money movements, newest first: the spending account's ledger and the deposits on its routes
 * (a deposit is a transaction the ledger does not list), with the count of each.
 * @param {Entry} entry
 * @param {string} name
 */
function moneyTable(entry, name) {
  const deposits = entry.deposits ?? [];
  const rows = [
    ...entry.ledger.map((e) => ({
      at: e.transaction?.createdAt ?? "",
      kind: `Ledger: ${e.type ?? ""}`,
      direction: e.transaction?.direction ?? "",
      amount: `${e.transaction?.amount ?? ""} ${e.transaction?.currency ?? ""}`,
      description: e.transaction?.description ?? "",
    })),
    ...deposits.map((d) => ({
      at: d.transaction.createdAt ?? "",
      kind: "Deposit",
      direction: d.transaction.type ?? "",
      amount: `${d.transaction.amount ?? ""} ${d.transaction.currency ?? ""}`,
      description: d.transaction.description ?? "",
    })),
  ].sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || 0);
  const counted = (/** @type {number} */ n) => (n === 100 ? "100+" : String(n));
  return h(
    "details",
    { dataset: { money: "" } },
    h(
      "summary",
      {},
      `Ledger and deposits (${counted(entry.ledger.length)} ledger entr${entry.ledger.length === 1 ? "y" : "ies"}, ${counted(deposits.length)} deposit${deposits.length === 1 ? "" : "s"}, newest first)`,
    ),
    rows.length === 0
      ? h("p", { class: "muted" }, "No money has moved yet.")
      : dataTable(
          `Ledger and deposits of ${name}`,
          ["Time", "Kind", "Direction", "Amount", "Description"],
          rows
            .slice(0, LEDGER_ROWS)
            .map((row) =>
              h(
                "tr",
                {},
                h("td", {}, formatTime(row.at)),
                h("td", {}, row.kind),
                h("td", {}, row.direction),
                h("td", {}, row.amount),
                h("td", {}, row.description),
              ),
            ),
        ),
  );
}
