// @ts-check
/**
 * The dashboard's shell: the account picker and the clock in the header, and the views by the page's hash
 * (#/accounts, #/events, #/requests, #/clock, #/console). Each view is its own module, loaded when first
 * opened, mounted into <main> and told when the chosen account or the clock changes.
 */
import { client, ok } from "./api.js";
import { every, formatTime, h, showProblem } from "./dom.js";
import { accountName } from "./format.js";
import { viewOf } from "./routes.js";

/**
 * @typedef {import("./api.js").Schemas["SandboxAccount"]} AccountSummary
 * @typedef {import("./api.js").Schemas["Clock"]} Clock
 * @typedef {object} Context
 * @property {() => string} account the chosen account's fingerprint ("" before any account has called)
 * @property {(fingerprint: string | null | undefined) => string} nameOf how people know an account: its label or
 *   the end of its key (the fingerprint only for one the page has not listed yet)
 * @property {(fingerprint: string) => string | null} labelOf the label its partner set, if any
 * @property {() => boolean} accountsLoaded whether the list of accounts has been read once
 * @property {(listener: (account: string) => void) => () => void} onAccountChange
 * @property {() => Clock | undefined} clock the clock's last reading
 * @property {(listener: (clock: Clock) => void) => () => void} onClock
 * @property {() => Promise<void>} refreshClock
 * @property {() => Promise<void>} refreshAccounts
 * @typedef {{ mount: (root: HTMLElement, context: Context) => (() => void) | undefined }} View
 */

/** @type {Record<string, { title: string, load: () => Promise<View> }>} */
const VIEWS = {
  accounts: { title: "Accounts", load: () => import("./accounts.js") },
  events: { title: "Events and deliveries", load: () => import("./events.js") },
  requests: { title: "Requests", load: () => import("./requests.js") },
  clock: { title: "Clock and faults", load: () => import("./clock.js") },
  console: { title: "Console", load: () => import("./console.js") },
};
const STORED_ACCOUNT = "partner-api-sandbox:account";

/** @type {Set<(account: string) => void>} */
const accountListeners = new Set();
/** @type {Set<(clock: Clock) => void>} */
const clockListeners = new Set();
/** The account the user picked in this tab (kept over a reload); none until they pick one. */
let pickedAccount = sessionStorage.getItem(STORED_ACCOUNT) ?? "";
let chosenAccount = "";
/** @type {Map<string, AccountSummary>} */
let accountsByFingerprint = new Map();
/** @type {Clock | undefined} */
let lastClock;
let accountsSeen = "";
let accountsLoaded = false;

const picker = /** @type {HTMLSelectElement} */ (document.getElementById("account"));
const clockLine = /** @type {HTMLElement} */ (document.getElementById("clock"));
const main = /** @type {HTMLElement} */ (document.getElementById("main"));

/** @param {string} account */
function chooseAccount(account) {
  if (account === chosenAccount) return;
  chosenAccount = account;
  if (picker.value !== account) picker.value = account;
  for (const listener of accountListeners) listener(account);
}

/** @param {string | null | undefined} fingerprint */
function nameOf(fingerprint) {
  if (!fingerprint) return "no account";
  const known = accountsByFingerprint.get(fingerprint);
  return known ? accountName(known) : fingerprint;
}

async function refreshAccounts() {
  const { accounts, lastCaller } = await ok(client.GET("/_sandbox/accounts"));
  accountsByFingerprint = new Map(accounts.map((a) => [a.account, a]));
  const seen = JSON.stringify(accounts.map((a) => [a.account, a.label, a.keyHint, a.companies, a.events]));
  if (seen !== accountsSeen) {
    accountsSeen = seen;
    picker.replaceChildren(
      ...(accounts.length === 0 ? [h("option", { value: "" }, "(none has called yet)")] : []),
      ...accounts.map((a) =>
        h(
          "option",
          { value: a.account, title: a.account },
          `${accountName(a)} · ${a.companies} compan${a.companies === 1 ? "y" : "ies"} · ${a.events} event${a.events === 1 ? "" : "s"}`,
        ),
      ),
    );
  }
  const known = (/** @type {string} */ account) => accountsByFingerprint.has(account);
  const first = !accountsLoaded;
  accountsLoaded = true;
  // The page opens on the account the user picked in this tab, else on the one that called last; it stays there
  // until the user picks another (or that account goes, in a reset).
  if (!known(chosenAccount))
    chooseAccount(
      known(pickedAccount)
        ? pickedAccount
        : lastCaller && known(lastCaller)
          ? lastCaller
          : (accounts[0]?.account ?? ""),
    );
  else if (picker.value !== chosenAccount) picker.value = chosenAccount;
  // Views wait for the first list before saying no account has called.
  if (first && chosenAccount === "") for (const listener of accountListeners) listener("");
}

async function refreshClock() {
  const clock = await ok(client.GET("/_sandbox/clock"));
  lastClock = clock;
  const parts = [formatTime(clock.now)];
  if (clock.frozen) parts.push("frozen");
  if (clock.status && clock.status !== "ready") parts.push(clock.status);
  clockLine.textContent = `Clock: ${parts.join(" · ")}`;
  for (const listener of clockListeners) listener(clock);
}

/** @type {Context} */
const context = {
  account: () => chosenAccount,
  nameOf,
  labelOf: (fingerprint) => accountsByFingerprint.get(fingerprint)?.label ?? null,
  accountsLoaded: () => accountsLoaded,
  onAccountChange(listener) {
    accountListeners.add(listener);
    return () => accountListeners.delete(listener);
  },
  clock: () => lastClock,
  onClock(listener) {
    clockListeners.add(listener);
    return () => clockListeners.delete(listener);
  },
  refreshClock,
  refreshAccounts,
};

/** @type {(() => void) | undefined} */
let unmountView;
let routeSerial = 0;

let currentView = "";

/**
 * Scalar keeps its place in the console in the hash (`#/console/partner-api/tag/…`), written from its scroll
 * tracking with `history.replaceState` (no hashchange; its bundle writes the address no other way). It may
 * write after the console is left and destroyed (its DOM going away moves what is "in view"), or between a
 * click on another view's link and the hashchange that link fires. Neither may take the user back to the
 * console: a view is routed by the hash its own navigation named (the hashchange's newURL), and Scalar's writes
 * are dropped while another view is open. The Console link itself (`#/console`) always opens it.
 */
const historyWrites = {
  pushState: history.pushState.bind(history),
  replaceState: history.replaceState.bind(history),
};
for (const name of /** @type {const} */ (["pushState", "replaceState"])) {
  history[name] = (state, unused, url) => {
    const hash = url === undefined || url === null ? "" : new URL(String(url), location.href).hash;
    if (hash !== "" && currentView !== "console" && viewOf(hash) === "console" && hash !== "#/console") return;
    historyWrites[name](state, unused, url);
  };
}

/** Shows the view `hash` names (the page's current hash unless a navigation named another). */
async function route(hash = location.hash) {
  const key = viewOf(hash);
  // Scalar moving within the console changes the hash: the console stays as it is.
  if (key === currentView && key === "console") return;
  currentView = key;
  // The address names the view shown, whatever Scalar wrote after the navigation that chose it.
  if (key !== "console" && viewOf(location.hash) !== key) historyWrites.replaceState(history.state, "", `#/${key}`);
  const view = VIEWS[key] ?? { title: key, load: () => import("./accounts.js") };
  const serial = ++routeSerial;
  for (const link of document.querySelectorAll(".views a")) {
    if (/** @type {HTMLElement} */ (link).dataset.view === key) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.title = `${view.title} · Partner API sandbox`;
  unmountView?.();
  unmountView = undefined;
  const heading = h("h1", { tabindex: "-1", id: "view-title" }, view.title);
  const root = h("section", { "aria-labelledby": "view-title", dataset: { view: key } });
  main.replaceChildren(heading, root);
  try {
    const module = await view.load();
    if (serial !== routeSerial) return;
    unmountView = module.mount(root, context);
  } catch (error) {
    showProblem(error);
  }
}

picker.addEventListener("change", () => {
  pickedAccount = picker.value;
  sessionStorage.setItem(STORED_ACCOUNT, pickedAccount);
  chooseAccount(pickedAccount);
});
// "Skip to the view" moves the focus without touching the hash: `#main` is no view, and any hash the page does
// not know is a place of Scalar's in the console.
document.querySelector("a.skip")?.addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});
window.addEventListener("hashchange", async (event) => {
  const before = currentView;
  await route(new URL(event.newURL).hash);
  // A view opened from the menu takes the focus, so a screen reader reads its title.
  if (currentView !== before) document.getElementById("view-title")?.focus();
});
every(2000, refreshAccounts);
every(1000, refreshClock);
route();
