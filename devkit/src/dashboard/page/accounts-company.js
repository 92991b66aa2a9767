// @ts-check
/**
 * One company of the Accounts view: its steps (onboarding, KYC, terms, KYB) with the buttons that move them, its
 * cards, payment routes, wallets and money.
 */

import { routesSection } from "./accounts-routes.js";
import { cardsTable, moneyTable, step, walletsTable } from "./accounts-tables.js";
import { as, client, ok } from "./api.js";
import { badge, formatTime, h } from "./dom.js";

/**
 * @typedef {import("./api.js").Schemas} Schemas
 * @typedef {Schemas["AccountCompany"]} Entry
 * @typedef {() => Promise<{ response: Response }>} Send
 * @typedef {(label: string, key: string, what: string, send: Send) => HTMLElement} Button
 * @typedef {{ act: (what: string, call: () => Promise<unknown>) => Promise<void>, kycStatuses: () => string[], forced: Set<string> }} AccountView
 */

/**
 * @param {Entry} entry
 * @param {string} account
 * @param {AccountView} view
 */
export function companyCard(entry, account, view) {
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
      { type: "button", dataset: { key: `${id}:${key}` }, onclick: () => view.act(what, () => ok(send())) },
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

  const steps = companySteps(entry, name, id, view, button, { onboarding, kyc, terms, kyb });

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
    routesSection(entry, name, id, account, button, view),
    walletsTable(entry.wallets, name),
    moneyTable(entry, name),
  );
}

/**
 * The company's steps (onboarding, KYC, terms, KYB), each with its state and the buttons that move it.
 * @param {Entry} entry
 * @param {string} name
 * @param {string} id
 * @param {AccountView} view
 * @param {Button} button
 * @param {{ onboarding: (body: Schemas["SetOnboardingStatusRequest"]) => Send, kyc: (body: Schemas["SetKycStatusRequest"]) => Send, terms: (body: Schemas["SetTermsAcceptedRequest"]) => Send, kyb: (body: Schemas["SetKybResultRequest"]) => Send }} calls
 */
function companySteps(entry, name, id, view, button, calls) {
  const { onboarding, kyc, terms, kyb } = calls;
  const company = entry.company;
  const swap = company.swap;
  const kycSelect = h(
    "select",
    { "aria-label": `KYC status to set for ${name}`, dataset: { key: `${id}:kyc-select` } },
    ...view.kycStatuses().map((status) => h("option", { value: status, selected: status === swap?.kycStatus }, status)),
  );
  const steps = h(
    "div",
    { class: "steps" },
    step(
      "Onboarding",
      badge(company.status ?? "–", company.status === "Active" ? "ok" : "warn"),
      button("Set Active", "onboarding-active", `${name}: onboarding set to Active`, onboarding({ status: "Active" })),
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
          view.kycStatuses().length > 0
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
                      view.act(`${name}: KYC set to ${/** @type {HTMLSelectElement} */ (kycSelect).value}`, () =>
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
      badge(entry.kybStatus ?? "not submitted", entry.kybStatus === "APPROVED" ? "ok" : entry.kybStatus ? "warn" : ""),
      button("Approve KYB", "kyb-approve", `${name}: KYB approved`, kyb({ status: "APPROVED" })),
      button("Reject KYB", "kyb-reject", `${name}: KYB rejected`, kyb({ status: "REJECTED" })),
    ),
  );
  return steps;
}
