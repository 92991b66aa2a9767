// @ts-check
/**
 * The request log's table: its head, and its rows, each drawn as a copy of one template row (at hundreds of calls
 * a second, cloning a row costs far less than building its elements one by one), and the line that counts the
 * calls a burst did not draw.
 */
import { badge, formatClock, formatDuration, h, statusTone } from "./dom.js";
import { faultEffect } from "./format.js";

/** @typedef {import("./api.js").Schemas["SandboxRequest"]} LoggedCall */

/** The table, its body empty. */
export function logTable() {
  const tbody = /** @type {HTMLTableSectionElement} */ (h("tbody", {}));
  const table = h(
    "table",
    { class: "log" },
    h("caption", { class: "visually-hidden" }, "Calls the sandbox answered, newest first"),
    h(
      "colgroup",
      {},
      ...["7.5rem", "9rem", "4rem", "", "4.5rem", "5rem", "8rem", "7rem"].map((width) =>
        h("col", width ? { style: `width: ${width}` } : {}),
      ),
    ),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ...["Time", "Account", "Method", "Path", "Status", "Duration", "Fault", "Contract"].map((t) =>
          h("th", { scope: "col" }, t),
        ),
      ),
    ),
    tbody,
  );
  return { table, tbody };
}

/**
 * Draws rows of calls: each account named as the page names it, the selected call's row marked.
 * @param {import("./app.js").Context} context
 * @param {() => number | undefined} selectedId
 */
export function rowDrawer(context, selectedId) {
  const rowTemplate = h(
    "tr",
    {},
    h("td", { class: "mono" }),
    h("td", { class: "mono" }),
    h("td", {}),
    h("td", {}, h("button", { type: "button" }, h("span", {}), " ", h("span", { class: "mono" }))),
    h("td", {}, h("span", { class: "badge" })),
    h("td", {}),
    h("td", {}),
    h("td", {}),
  );
  /** @param {LoggedCall} call */
  return (call) => {
    const tr = /** @type {HTMLTableRowElement} */ (rowTemplate.cloneNode(true));
    const cells = tr.cells;
    tr.dataset.id = String(call.id);
    tr.dataset.status = call.status === null ? "dropped" : String(call.status);
    if (call.id === selectedId()) tr.className = "selected";
    /** @type {HTMLElement} */ (cells[0]).textContent = formatClock(call.at);
    /** @type {HTMLElement} */ (cells[1]).textContent = call.account ? context.nameOf(call.account) : "–";
    /** @type {HTMLElement} */ (cells[2]).textContent = call.method;
    const button = /** @type {HTMLElement} */ (cells[3]?.firstChild);
    button.title = call.path;
    /** @type {HTMLElement} */ (button.firstChild).textContent = call.operationId ?? "";
    /** @type {HTMLElement} */ (button.lastChild).textContent = call.path;
    const status = /** @type {HTMLElement} */ (cells[4]?.firstChild);
    status.textContent = call.status === null ? "dropped" : String(call.status);
    status.classList.add(statusTone(call.status));
    /** @type {HTMLElement} */ (cells[5]).textContent = formatDuration(call.durationMs);
    if (call.fault) cells[6]?.append(badge(faultEffect(call.fault), "bad"));
    cells[7]?.append(
      call.contract === null
        ? "–"
        : call.contract.valid
          ? badge("as declared", "ok", "answer as the contract declares")
          : badge(`${call.contract.issues.length} issue(s)`, "bad", "answer not as the contract declares"),
    );
    return tr;
  };
}

/** @param {number} count */
export function gapRow(count) {
  return h(
    "tr",
    { class: "gap" },
    h("td", { colspan: "8", class: "muted" }, `${count} more call(s) arrived meanwhile; Pause draws every kept call`),
  );
}

/**
 * One listener for every row's button: the row names the call chosen.
 * @param {HTMLTableSectionElement} tbody
 * @param {(id: number) => void} chosen
 */
export function onRowChosen(tbody, chosen) {
  tbody.addEventListener("click", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    const tr = target.closest("button") && target.closest("tr");
    if (tr) chosen(Number(tr.dataset.id));
  });
}
