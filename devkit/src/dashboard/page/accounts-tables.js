// @ts-check
/** The Accounts view's tables: a company's cards, wallets, money (ledger and deposits), and a route's deposits. */
import { badge, dataTable, formatTime, h } from "./dom.js";

/** Ledger entries and deposits shown per company (the newest). */
const LEDGER_ROWS = 10;
/** Deposits listed under each route (the newest). */
const ROUTE_DEPOSITS = 5;

/**
 * @typedef {import("./api.js").Schemas} Schemas
 * @typedef {Schemas["AccountCompany"]} Entry
 */

/**
 * @param {string} title
 * @param {...(Node | null)} parts
 */
export function step(title, ...parts) {
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
export function cardsTable(cards, name) {
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
export function walletsTable(wallets, name) {
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
export function routeDeposits(deposits) {
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
export function moneyTable(entry, name) {
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
