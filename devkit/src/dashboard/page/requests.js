// @ts-check
/**
 * Requests: the request log, live. The page reads the newest calls once and then follows the log's
 * server-sent event stream. Calls arriving fast (hundreds a second) are batched: kept in a bounded buffer
 * and drawn a few times a second, newest first, new rows added at the top and the oldest dropped, so the
 * table never holds more than MAX_ROWS rows and a burst costs one redraw, not one per call.
 */
import { client, ok } from "./api.js";
import { announce, h, replaceKeepingFocus, showProblem } from "./dom.js";
import { matches } from "./format.js";
import { callDetails, detailsPanel } from "./requests-details.js";
import { logFilters } from "./requests-filters.js";
import { gapRow, logTable, onRowChosen, rowDrawer } from "./requests-table.js";

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

/** @typedef {import("./requests-table.js").LoggedCall} LoggedCall */

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mount(root, context) {
  const log = callBuffer();
  const measure = drawMeasure();
  let paused = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let drawTimer;
  /** @type {number | undefined} */
  let selectedId;

  const filters = logFilters(context);
  const pause = h("button", { type: "button", "aria-pressed": "false" }, "Pause");
  const clear = h("button", { type: "button" }, "Clear the log");
  const state = h("p", { class: "muted", role: "status", "aria-live": "polite" }, "Connecting…");
  const { table, tbody } = logTable();
  const row = rowDrawer(context, () => selectedId);
  const details = detailsPanel();
  root.append(
    filters.group(pause, clear),
    state,
    h("div", { class: "split" }, h("div", { class: "scroll" }, table), details),
  );

  onRowChosen(tbody, (id) => {
    const call = log.kept.find((c) => c.id === id);
    if (call) select(call);
  });

  /** @param {LoggedCall} call */
  function select(call) {
    selectedId = call.id;
    for (const tr of tbody.querySelectorAll("tr.selected")) tr.classList.remove("selected");
    tbody.querySelector(`tr[data-id="${call.id}"]`)?.classList.add("selected");
    replaceKeepingFocus(details, ...callDetails(call, context));
  }

  function redraw() {
    tbody.replaceChildren(...keptRows(log.kept, filters.filter(), row));
    describeState();
  }

  function describeState() {
    state.textContent = paused
      ? `Paused: ${log.kept.length} calls kept, ${log.arrived.length} new not drawn yet.`
      : `Live: ${log.kept.length} calls kept (the newest ${MAX_ROWS} matching are shown).`;
  }

  /** Draws what arrived since the last draw: new rows on top, the oldest rows dropped. */
  function drawArrived() {
    drawTimer = undefined;
    if (paused || log.arrived.length === 0) return;
    const started = performance.now();
    tbody.prepend(batchRows(log.take(), filters.filter(), row));
    while (tbody.rows.length > MAX_ROWS) tbody.deleteRow(-1);
    describeState();
    measure(started);
  }

  const stream = follow(
    (call) => {
      if (log.receive(call)) drawTimer ??= setTimeout(drawArrived, DRAW_EVERY_MS);
    },
    (requests, early) => {
      log.load(requests, early);
      redraw();
    },
    describeState,
    (message) => {
      state.textContent = message;
    },
  );

  filters.onChange(redraw);
  pause.addEventListener("click", () => {
    paused = !paused;
    pressed(pause, paused);
    // Pausing draws every kept call (no gaps); resuming goes on from the newest.
    log.take();
    redraw();
  });
  clear.addEventListener("click", () =>
    clearLog(() => {
      log.clear();
      redraw();
    }),
  );
  const stopAccount = context.onAccountChange(() => {
    filters.nameScope();
    if (filters.byAccount()) redraw();
  });

  return () => {
    stream.close();
    clearTimeout(drawTimer);
    stopAccount();
  };
}

/**
 * The calls the page keeps (newest first, at most MAX_KEPT) and those arrived since the last draw (oldest first,
 * at most MAX_ROWS: a burst beyond a table's worth is never drawn), each call once.
 */
function callBuffer() {
  /** @type {LoggedCall[]} */
  let kept = [];
  /** @type {LoggedCall[]} */
  let arrived = [];
  let lastId = 0;
  return {
    get kept() {
      return kept;
    },
    get arrived() {
      return arrived;
    },
    /**
     * Keeps a call newer than every kept one; false when it is not (seen already).
     * @param {LoggedCall} call
     */
    receive(call) {
      if (call.id <= lastId) return false;
      lastId = call.id;
      kept.unshift(call);
      if (kept.length > MAX_KEPT) kept.length = MAX_KEPT;
      arrived.push(call);
      if (arrived.length > MAX_ROWS) arrived.splice(0, arrived.length - MAX_ROWS);
      return true;
    },
    /**
     * The log as read (newest first), with the calls the stream brought meanwhile; nothing left to draw.
     * @param {LoggedCall[]} requests
     * @param {LoggedCall[]} early
     */
    load(requests, early) {
      kept = requests.slice(0, MAX_KEPT);
      lastId = kept[0]?.id ?? 0;
      for (const call of early) this.receive(call);
      arrived = [];
    },
    /** The calls arrived since the last draw, oldest first, forgotten here. */
    take() {
      const taken = arrived;
      arrived = [];
      return taken;
    },
    clear() {
      kept = [];
      arrived = [];
    },
  };
}

/**
 * Follows the log: the stream first, then the calls before it, so none falls between the two. The calls the
 * stream brought before that read are handed to `loaded` with it; every later one to `receive`.
 * @param {(call: LoggedCall) => void} receive
 * @param {(requests: LoggedCall[], early: LoggedCall[]) => void} loaded
 * @param {() => void} opened
 * @param {(message: string) => void} down
 */
function follow(receive, loaded, opened, down) {
  const stream = new EventSource("/_sandbox/requests/stream");
  /** @type {LoggedCall[]} */
  const early = [];
  let read = false;
  stream.addEventListener("request", (event) => {
    const call = /** @type {LoggedCall} */ (JSON.parse(/** @type {MessageEvent} */ (event).data));
    if (read) receive(call);
    else early.push(call);
  });
  stream.addEventListener("open", opened);
  stream.addEventListener("error", () => down("The live stream is down; the page reconnects by itself."));
  ok(client.GET("/_sandbox/requests", { params: { query: { limit: MAX_KEPT } } })).then(
    ({ requests }) => {
      read = true;
      loaded(requests, early.splice(0));
    },
    (/** @type {unknown} */ error) => {
      read = true;
      showProblem(error);
    },
  );
  return stream;
}

/**
 * A batch of calls that arrived (oldest first) as rows, newest on top: those the filter keeps, at most
 * DRAWN_PER_BATCH, then a line counting the rest (faster than a screenful a batch, the newest are drawn).
 * @param {LoggedCall[]} batch
 * @param {Parameters<typeof matches>[1]} current
 * @param {(call: LoggedCall) => HTMLTableRowElement} row
 */
function batchRows(batch, current, row) {
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
  if (skipped > 0) fragment.append(gapRow(skipped));
  return fragment;
}

/**
 * The pause button as the log's state has it.
 * @param {HTMLElement} button
 * @param {boolean} paused
 */
function pressed(button, paused) {
  button.setAttribute("aria-pressed", String(paused));
  button.textContent = paused ? "Resume" : "Pause";
}

/**
 * Empties the sandbox's request log, then the page's.
 * @param {() => void} cleared
 */
async function clearLog(cleared) {
  try {
    await ok(client.DELETE("/_sandbox/requests"));
    cleared();
    announce("request log cleared");
  } catch (error) {
    showProblem(error);
  }
}

/**
 * The newest MAX_ROWS kept calls the filter keeps, as rows.
 * @param {LoggedCall[]} kept
 * @param {Parameters<typeof matches>[1]} current
 * @param {(call: LoggedCall) => HTMLTableRowElement} row
 */
function keptRows(kept, current, row) {
  const rows = [];
  for (const call of kept) {
    if (!matches(call, current)) continue;
    rows.push(row(call));
    if (rows.length === MAX_ROWS) break;
  }
  return rows;
}

/** Measures each batch drawn, as bench/dashboard.ts reads it; the timeline is emptied now and then. */
function drawMeasure() {
  let measured = 0;
  return (/** @type {number} */ started) => {
    if (++measured > 500) {
      performance.clearMeasures(DRAW_MEASURE);
      measured = 1;
    }
    performance.measure(DRAW_MEASURE, { start: started });
  };
}
