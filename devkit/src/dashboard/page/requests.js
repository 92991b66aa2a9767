// @ts-check
/**
 * Requests: the request log, live. The page reads the newest calls once and then follows the log's
 * server-sent event stream. Calls arriving fast (hundreds a second) are batched: kept in a bounded buffer
 * and drawn a few times a second, newest first, new rows added at the top and the oldest dropped, so the
 * table never holds more than MAX_ROWS rows and a burst costs one redraw, not one per call.
 */
import { client, ok } from "./api.js";
import {
  announce,
  badge,
  formatClock,
  formatDuration,
  h,
  pretty,
  replaceKeepingFocus,
  showProblem,
  statusTone,
} from "./dom.js";
import { faultEffect, matches } from "./format.js";

/** Calls kept in the page (the sandbox's own log holds 1,000 too). */
export const MAX_KEPT = 1000;
/** Rows in the table at most. */
export const MAX_ROWS = 100;
/** New rows drawn per batch at most (more than a screenful); the rest of a burst is counted, not drawn. */
export const DRAWN_PER_BATCH = 40;
/** The User Timing name of one batch drawn. */
const DRAW_MEASURE = "dashboard:draw";
/** How often new calls are drawn, at most. */
const DRAW_EVERY_MS = 250;

/** @typedef {import("./api.js").Schemas["SandboxRequest"]} LoggedCall */

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mount(root, context) {
  /** Newest first. @type {LoggedCall[]} */
  let kept = [];
  /** Arrived since the last draw, oldest first. @type {LoggedCall[]} */
  let arrived = [];
  let lastId = 0;
  let measured = 0;
  let paused = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let drawTimer;
  /** @type {number | undefined} */
  let selectedId;

  const scope = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "log-scope" },
      h("option", { value: "account" }, "the chosen account"),
      h("option", { value: "" }, "every account"),
    )
  );
  /** Names the chosen account in the scope menu, so the filter says whose calls it keeps. */
  const nameScope = () => {
    const chosen = context.account();
    /** @type {HTMLOptionElement} */ (scope.options[0]).textContent = chosen
      ? `the chosen account (${context.nameOf(chosen)})`
      : "the chosen account (none yet)";
  };
  nameScope();
  const text = /** @type {HTMLInputElement} */ (
    h("input", { id: "log-text", type: "search", placeholder: "listCardBins or /v1/…" })
  );
  const status = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "log-status" },
      h("option", { value: "" }, "any status"),
      ...["2xx", "3xx", "4xx", "5xx"].map((s) => h("option", { value: s }, s)),
      h("option", { value: "dropped" }, "dropped connection"),
    )
  );
  const faulted = /** @type {HTMLInputElement} */ (h("input", { id: "log-faulted", type: "checkbox" }));
  const mismatched = /** @type {HTMLInputElement} */ (h("input", { id: "log-mismatched", type: "checkbox" }));
  const pause = h("button", { type: "button", "aria-pressed": "false" }, "Pause");
  const clear = h("button", { type: "button" }, "Clear the log");
  const state = h("p", { class: "muted", role: "status", "aria-live": "polite" }, "Connecting…");
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
  const details = h(
    "aside",
    { "aria-label": "The selected call" },
    h("p", { class: "muted" }, "Choose a call to see its bodies."),
  );

  root.append(
    h(
      "div",
      { class: "filters", role: "group", "aria-label": "Filter the log" },
      h("label", { for: "log-scope" }, "Calls of "),
      scope,
      h("label", { for: "log-text" }, "Operation or path "),
      text,
      h("label", { for: "log-status" }, "Status "),
      status,
      h("label", {}, faulted, " faulted only"),
      h("label", {}, mismatched, " answer not as the contract says"),
      pause,
      clear,
    ),
    state,
    h("div", { class: "split" }, h("div", { class: "scroll" }, table), details),
  );

  const filter = () => ({
    account: scope.value === "account" ? context.account() : "",
    text: text.value.trim(),
    status: status.value,
    faulted: faulted.checked,
    mismatched: mismatched.checked,
  });

  // One row drawn as a copy of this one, its cells filled with text: at hundreds of calls a second, cloning a
  // row costs far less than building its elements one by one.
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
  function row(call) {
    const tr = /** @type {HTMLTableRowElement} */ (rowTemplate.cloneNode(true));
    const cells = tr.cells;
    tr.dataset.id = String(call.id);
    tr.dataset.status = call.status === null ? "dropped" : String(call.status);
    if (call.id === selectedId) tr.className = "selected";
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
  }

  // One listener for every row's button: the row names the call.
  tbody.addEventListener("click", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    const tr = target.closest("button") && target.closest("tr");
    if (!tr) return;
    const id = Number(tr.dataset.id);
    const call = kept.find((c) => c.id === id);
    if (call) select(call);
  });

  /** @param {LoggedCall} call */
  function select(call) {
    selectedId = call.id;
    for (const tr of tbody.querySelectorAll("tr.selected")) tr.classList.remove("selected");
    tbody.querySelector(`tr[data-id="${call.id}"]`)?.classList.add("selected");
    const issues = call.contract?.issues ?? [];
    replaceKeepingFocus(
      details,
      h("h2", {}, `${call.method} ${call.path}${call.query ? `?${call.query}` : ""}`),
      h(
        "p",
        {},
        badge(call.status === null ? "dropped" : String(call.status), statusTone(call.status)),
        ` ${call.operationId ?? "no operation"} · ${formatDuration(call.durationMs)} · ${call.account ? context.nameOf(call.account) : "no key"}`,
        call.scenario ? ` · scenario ${call.scenario}` : "",
      ),
      call.fault ? h("p", {}, "Fault applied: ", h("code", {}, call.fault.id), ` (${faultEffect(call.fault)})`) : null,
      call.contract
        ? h(
            "div",
            {},
            h("h3", {}, call.contract.valid ? "The answer is as the contract declares" : "Rules the answer broke"),
            issues.length > 0
              ? h(
                  "ul",
                  {},
                  ...issues.map((issue) =>
                    h("li", {}, issue.location ? h("code", {}, issue.location.join(".")) : "", ` ${issue.message}`),
                  ),
                )
              : null,
          )
        : null,
      h("h3", {}, "Request"),
      h("pre", {}, pretty(call.request.headers)),
      h("pre", {}, pretty(call.request.body)),
      h("h3", {}, "Response"),
      h("pre", {}, pretty(call.response.headers)),
      h("pre", {}, pretty(call.response.body)),
    );
  }

  function redraw() {
    const current = filter();
    const rows = [];
    for (const call of kept) {
      if (!matches(call, current)) continue;
      rows.push(row(call));
      if (rows.length === MAX_ROWS) break;
    }
    tbody.replaceChildren(...rows);
    describeState();
  }

  function describeState() {
    const waiting = arrived.length;
    state.textContent = paused
      ? `Paused: ${kept.length} calls kept, ${waiting} new not drawn yet.`
      : `Live: ${kept.length} calls kept (the newest ${MAX_ROWS} matching are shown).`;
  }

  /** Draws what arrived since the last draw: new rows on top, the oldest rows dropped. */
  function drawArrived() {
    drawTimer = undefined;
    if (paused || arrived.length === 0) return;
    const started = performance.now();
    const batch = arrived;
    arrived = [];
    const current = filter();
    const fragment = document.createDocumentFragment();
    let added = 0;
    let skipped = 0;
    for (let i = batch.length - 1; i >= 0; i--) {
      const call = /** @type {LoggedCall} */ (batch[i]);
      if (!matches(call, current)) continue;
      if (added === DRAWN_PER_BATCH) {
        skipped++;
        continue;
      }
      fragment.append(row(call));
      added++;
    }
    // Faster than a screenful a batch: the newest are drawn, and a line says how many were not.
    if (skipped > 0) fragment.append(gapRow(skipped));
    tbody.prepend(fragment);
    while (tbody.rows.length > MAX_ROWS) tbody.deleteRow(-1);
    describeState();
    // What each batch cost the page, as bench/dashboard.ts reads it; the timeline is emptied now and then.
    if (++measured > 500) {
      performance.clearMeasures(DRAW_MEASURE);
      measured = 1;
    }
    performance.measure(DRAW_MEASURE, { start: started });
  }

  /** @param {number} count */
  function gapRow(count) {
    return h(
      "tr",
      { class: "gap" },
      h("td", { colspan: "8", class: "muted" }, `${count} more call(s) arrived meanwhile; Pause draws every kept call`),
    );
  }

  /** @param {LoggedCall} call */
  function receive(call) {
    if (call.id <= lastId) return;
    lastId = call.id;
    kept.unshift(call);
    if (kept.length > MAX_KEPT) kept.length = MAX_KEPT;
    arrived.push(call);
    if (arrived.length > MAX_ROWS) arrived.splice(0, arrived.length - MAX_ROWS);
    drawTimer ??= setTimeout(drawArrived, DRAW_EVERY_MS);
  }

  // The stream first, then the calls before it, so none falls between the two.
  const stream = new EventSource("/_sandbox/requests/stream");
  /** @type {LoggedCall[]} */
  const early = [];
  let loaded = false;
  stream.addEventListener("request", (event) => {
    const call = /** @type {LoggedCall} */ (JSON.parse(/** @type {MessageEvent} */ (event).data));
    if (loaded) receive(call);
    else early.push(call);
  });
  stream.addEventListener("open", describeState);
  stream.addEventListener("error", () => {
    state.textContent = "The live stream is down; the page reconnects by itself.";
  });
  ok(client.GET("/_sandbox/requests", { params: { query: { limit: MAX_KEPT } } })).then(
    ({ requests }) => {
      kept = requests.slice(0, MAX_KEPT);
      lastId = kept[0]?.id ?? 0;
      loaded = true;
      for (const call of early) receive(call);
      early.length = 0;
      arrived = [];
      redraw();
    },
    (/** @type {unknown} */ error) => {
      loaded = true;
      showProblem(error);
    },
  );

  for (const input of [scope, status, faulted, mismatched]) input.addEventListener("change", redraw);
  text.addEventListener("input", redraw);
  pause.addEventListener("click", () => {
    paused = !paused;
    pause.setAttribute("aria-pressed", String(paused));
    pause.textContent = paused ? "Resume" : "Pause";
    // Pausing draws every kept call (no gaps); resuming goes on from the newest.
    arrived = [];
    redraw();
  });
  clear.addEventListener("click", async () => {
    try {
      await ok(client.DELETE("/_sandbox/requests"));
      kept = [];
      arrived = [];
      redraw();
      announce("request log cleared");
    } catch (error) {
      showProblem(error);
    }
  });
  const stopAccount = context.onAccountChange(() => {
    nameScope();
    if (scope.value === "account") redraw();
  });

  return () => {
    stream.close();
    clearTimeout(drawTimer);
    stopAccount();
  };
}
