// @ts-check
/**
 * Accounts: the chosen account's companies, each with its onboarding, verification (KYC), terms and KYB
 * steps and the buttons that move them (the control API's own operations), its cards (their status
 * updates live), payment routes with a deposit form, wallets and the newest ledger entries.
 */
import { control, encode, enumOf } from "./api.js";
import { announce, badge, every, formatTime, h, replaceKeepingFocus, showProblem, stopAll } from "./dom.js";

/** How often the view reads the account again (a card turns Active on the clock, not on a click). */
const REFRESH_MS = 1000;
/** Marked once the first account is drawn. */
const READY_MARK = "dashboard:ready";
/** Ledger entries shown per company (the newest). */
const LEDGER_ROWS = 10;

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mount(root, context) {
  const body = h("div", { "aria-busy": "true" }, h("p", { class: "muted" }, "Reading the account…"));
  root.append(body);
  let seen = "";
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
        replaceKeepingFocus(body, noAccount());
      }
      body.removeAttribute("aria-busy");
      return;
    }
    const overview = await control("GET", `/_sandbox/accounts/${encode(account)}`);
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

  /** @param {any} overview */
  function render(overview) {
    const companies = /** @type {any[]} */ (overview.companies);
    return [
      h(
        "p",
        { class: "muted" },
        `${overview.account}: ${companies.length} compan${companies.length === 1 ? "y" : "ies"}. `,
        "Buttons call the control API as this account; a partner API call with its key shows here within a second.",
      ),
      ...companies.map((entry) => companyCard(entry, overview.account)),
    ];
  }

  /**
   * @param {any} entry
   * @param {string} account
   */
  function companyCard(entry, account) {
    const company = entry.company;
    const id = company.id;
    const name = company.name ?? id;
    const headingId = `company-${id}`;
    const path = `/_sandbox/companies/${encode(id)}`;
    /**
     * @param {string} label
     * @param {string} key
     * @param {string} what
     * @param {string} method
     * @param {string} url
     * @param {unknown} [payload] the body, or a function that gives it when the button is pressed
     */
    const button = (label, key, what, method, url, payload) =>
      h(
        "button",
        {
          type: "button",
          dataset: { key: `${id}:${key}` },
          onclick: () =>
            act(what, () =>
              control(method, url, { account, body: typeof payload === "function" ? payload() : payload }),
            ),
        },
        label,
      );

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
          "POST",
          `${path}/onboarding-status`,
          {
            status: "Active",
          },
        ),
        button(
          "Set Pending",
          "onboarding-pending",
          `${name}: onboarding set to Pending`,
          "POST",
          `${path}/onboarding-status`,
          {
            status: "Pending",
          },
        ),
      ),
      swap
        ? step(
            "Verification (KYC)",
            badge(
              swap.kycStatus,
              swap.kycStatus === "approved" ? "ok" : swap.kycStatus === "rejected" ? "bad" : "warn",
            ),
            button("Approve KYC", "kyc-approve", `${name}: KYC approved`, "POST", `${path}/kyc-status`, {
              kycStatus: "approved",
            }),
            button("Reject KYC", "kyc-reject", `${name}: KYC rejected`, "POST", `${path}/kyc-status`, {
              kycStatus: "rejected",
            }),
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
                          control("POST", `${path}/kyc-status`, {
                            account,
                            body: { kycStatus: /** @type {HTMLSelectElement} */ (kycSelect).value },
                          }),
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
              ? button(
                  "Withdraw terms",
                  "terms-withdraw",
                  `${name}: terms not accepted`,
                  "POST",
                  `${path}/terms-acceptance`,
                  {
                    tosAccepted: false,
                  },
                )
              : button("Accept terms", "terms-accept", `${name}: terms accepted`, "POST", `${path}/terms-acceptance`, {
                  tosAccepted: true,
                }),
          )
        : null,
      step(
        "Business verification (KYB)",
        badge(
          entry.kybStatus ?? "not submitted",
          entry.kybStatus === "APPROVED" ? "ok" : entry.kybStatus ? "warn" : "",
        ),
        button("Approve KYB", "kyb-approve", `${name}: KYB approved`, "POST", `${path}/kyb-result`, {
          status: "APPROVED",
        }),
        button("Reject KYB", "kyb-reject", `${name}: KYB rejected`, "POST", `${path}/kyb-result`, {
          status: "REJECTED",
        }),
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
      routesSection(entry.paymentRoutes, name, id, account, button),
      walletsTable(entry.wallets, name),
      ledgerTable(entry.ledger, name),
    );
  }

  /**
   * @param {any[]} routes
   * @param {string} name
   * @param {string} id
   * @param {string} account
   * @param {(label: string, key: string, what: string, method: string, url: string, payload?: unknown) => HTMLElement} button
   */
  function routesSection(routes, name, id, account, button) {
    const path = `/_sandbox/companies/${encode(id)}/payment-routes`;
    return h(
      "div",
      {},
      h(
        "div",
        { class: "row" },
        h("h3", {}, `Payment routes (${routes.length})`),
        button("Open on-ramp route", "route-onramp", `${name}: on-ramp route opened`, "POST", path, () => ({
          type: "onramp",
          ...withForce(id),
        })),
        button("Open off-ramp route", "route-offramp", `${name}: off-ramp route opened`, "POST", path, () => ({
          type: "offramp",
          ...withForce(id),
        })),
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
        : h(
            "table",
            {},
            h("caption", { class: "visually-hidden" }, `Payment routes of ${name}`),
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ...["Route", "Type", "Status", "Currency", "Deposit address", "Deposit"].map((t) =>
                  h("th", { scope: "col" }, t),
                ),
              ),
            ),
            h(
              "tbody",
              {},
              ...routes.map((route) => {
                const amount = h("input", {
                  type: "number",
                  min: "0.01",
                  step: "0.01",
                  value: "100",
                  required: true,
                  "aria-label": `Amount to deposit on route ${route.id}`,
                  dataset: { key: `${route.id}:amount` },
                  style: "width: 7rem",
                });
                const form = h(
                  "form",
                  {
                    class: "row",
                    onsubmit: (/** @type {SubmitEvent} */ event) => {
                      event.preventDefault();
                      const value = Number(/** @type {HTMLInputElement} */ (amount).value);
                      act(`${name}: deposit of ${value} on route ${route.id}`, () =>
                        control("POST", `/_sandbox/payment-routes/${encode(route.id)}/deposits`, {
                          account,
                          body: { amount: value, ...withForce(id) },
                        }),
                      );
                    },
                  },
                  amount,
                  h("button", { type: "submit", dataset: { key: `${route.id}:deposit` } }, "Deposit"),
                );
                return h(
                  "tr",
                  {},
                  h("td", {}, h("code", {}, route.id)),
                  h("td", {}, route.type),
                  h("td", {}, badge(route.status, route.status === "active" ? "ok" : "warn")),
                  h("td", {}, route.currency ?? ""),
                  h("td", {}, h("code", {}, route.depositAddress ?? "")),
                  h("td", {}, form),
                );
              }),
            ),
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
      : h(
          "table",
          {},
          h("caption", { class: "visually-hidden" }, `Cards of ${name}`),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ...["Card", "Name", "Brand", "Last 4", "Holder", "Status", "Created"].map((t) =>
                h("th", { scope: "col" }, t),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            ...cards.map((card) =>
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
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, `Wallets of ${name}`),
      h(
        "thead",
        {},
        h("tr", {}, ...["Wallet", "Currency", "Default chain", "Chains"].map((t) => h("th", { scope: "col" }, t))),
      ),
      h(
        "tbody",
        {},
        ...wallets.map((wallet) =>
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
    ),
  );
}

/**
 * @param {any[]} ledger
 * @param {string} name
 */
function ledgerTable(ledger, name) {
  const rows = ledger.slice(0, LEDGER_ROWS);
  return h(
    "details",
    {},
    h("summary", {}, `Ledger (${ledger.length === 100 ? "100+" : ledger.length} entries, newest first)`),
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, `Ledger of ${name}`),
      h(
        "thead",
        {},
        h("tr", {}, ...["Time", "Type", "Direction", "Amount", "Description"].map((t) => h("th", { scope: "col" }, t))),
      ),
      h(
        "tbody",
        {},
        ...rows.map((entry) =>
          h(
            "tr",
            {},
            h("td", {}, formatTime(entry.transaction?.createdAt)),
            h("td", {}, entry.type ?? ""),
            h("td", {}, entry.transaction?.direction ?? ""),
            h("td", {}, `${entry.transaction?.amount ?? ""} ${entry.transaction?.currency ?? ""}`),
            h("td", {}, entry.transaction?.description ?? ""),
          ),
        ),
      ),
    ),
  );
}
