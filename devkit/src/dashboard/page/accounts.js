// @ts-check
/**
 * Accounts: the chosen account's companies, each with its onboarding, verification (KYC), terms and KYB
 * steps and the buttons that move them (the control API's own operations), its cards (their status
 * updates live), payment routes with a deposit form, wallets and the newest ledger entries.
 */
import { companyCard } from "./accounts-company.js";
import { client, enumOf, ok } from "./api.js";
import { announce, every, h, replaceKeepingFocus, showProblem, stopAll } from "./dom.js";

/** How often the view reads the account again (a card turns Active on the clock, not on a click). */
const REFRESH_MS = 1000;
/** Marked once the first account is drawn. */
const READY_MARK = "dashboard:ready";

/**
 * @typedef {import("./api.js").Schemas} Schemas
 * @typedef {Schemas["AccountOverview"]} Overview
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

  /** Companies whose route and deposit buttons skip the API's verification rule (`force`). @type {Set<string>} */
  const forced = new Set();

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
      labelBox.replaceChildren(labelForm(account, context, act));
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

  /** @type {import("./accounts-company.js").AccountView} */
  const view = { act, kycStatuses: () => kycStatuses, forced };

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
      ...companies.map((entry) => companyCard(entry, overview.account, view)),
    ];
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
 * The form that names the account (its label, shown in the header's picker instead of its key's end).
 * @param {string} account
 * @param {import("./app.js").Context} context
 * @param {import("./accounts-company.js").AccountView["act"]} act
 */
function labelForm(account, context, act) {
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
