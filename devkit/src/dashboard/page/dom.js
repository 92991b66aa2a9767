// @ts-check
/**
 * Small DOM helpers for the dashboard: elements built from data (text nodes only, never HTML strings, so
 * nothing a request carried can become markup), formatting, announcements for screen readers.
 */
import { formatUtc } from "./format.js";

/**
 * @typedef {string | number | Node | null | undefined | false} Child
 * @typedef {Record<string, unknown>} Attributes
 */

/**
 * An element: `h("button", { class: "primary", onclick }, "Send")`. Keys starting with `on` are listeners,
 * `dataset` sets data-*, `true` sets a boolean attribute, `false`/null/undefined leave it out.
 * @param {string} tag
 * @param {Attributes} [attributes]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElement}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else if (name === "dataset" && typeof value === "object") {
      for (const [key, data] of Object.entries(/** @type {object} */ (value))) element.dataset[key] = String(data);
    } else if (name === "value" && "value" in element) {
      /** @type {HTMLInputElement} */ (element).value = String(value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

/**
 * A table in its scroll box (a table wider than the screen scrolls sideways there, the page never does): its
 * caption (for screen readers only unless `captionShown`), its column headings, its rows.
 * @param {string} caption
 * @param {string[]} headings
 * @param {(Child | Child[])[]} rows
 * @param {{ captionShown?: boolean, attributes?: Attributes }} [options]
 */
export function dataTable(caption, headings, rows, options = {}) {
  return h(
    "div",
    { class: "scroll" },
    h(
      "table",
      options.attributes ?? {},
      h("caption", options.captionShown ? {} : { class: "visually-hidden" }, caption),
      h("thead", {}, h("tr", {}, ...headings.map((heading) => h("th", { scope: "col" }, heading)))),
      h("tbody", {}, ...rows),
    ),
  );
}

/**
 * @param {Element | DocumentFragment} parent
 * @param {(Child | Child[])[]} children
 */
export function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Replaces a container's content and gives focus back to the control that had it (matched by its
 * `data-key`), so a view that redraws on new data does not throw a keyboard user back to the top.
 * @param {Element} container
 * @param {(Child | Child[])[]} children
 */
export function replaceKeepingFocus(container, ...children) {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && container.contains(active) ? active.dataset.key : undefined;
  const fragment = document.createDocumentFragment();
  append(fragment, children);
  container.replaceChildren(fragment);
  if (key) {
    const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again instanceof HTMLElement) again.focus();
  }
}

/** A clock time as the page writes every time: 24-hour UTC, as the sandbox keeps it ("2026-11-23 09:00:00 UTC"). */
export const formatTime = formatUtc;

/**
 * The time of day only (for dense lists), 24-hour UTC with milliseconds.
 * @param {string | null | undefined} iso
 */
export function formatClock(iso) {
  if (!iso) return "–";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(11, 23);
}

/** @param {number | null | undefined} ms */
export function formatDuration(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/**
 * JSON as indented text for a <pre>.
 * @param {unknown} value
 */
export function pretty(value) {
  return value === undefined ? "(none)" : typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/**
 * Tells screen readers (and sighted users, in the status line) what an action did.
 * @param {string} message
 */
export function announce(message) {
  const region = document.getElementById("announce");
  if (!region) return;
  // Setting the same text twice would not be read again: clear first.
  region.textContent = "";
  requestAnimationFrame(() => {
    region.textContent = message;
  });
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let problemTimer;

/**
 * Shows what went wrong with an action (the sandbox's problem detail), as an alert.
 * @param {unknown} error
 */
export function showProblem(error) {
  const box = document.getElementById("problem");
  if (!box) return;
  box.textContent = error instanceof Error ? error.message : String(error);
  box.hidden = false;
  clearTimeout(problemTimer);
  problemTimer = setTimeout(() => {
    box.hidden = true;
  }, 8000);
}

/**
 * A status as a coloured badge: green for 2xx, amber for 3xx/4xx, red for 5xx and failures.
 * @param {string} text
 * @param {"ok" | "warn" | "bad" | ""} tone
 * @param {string} [label] what a screen reader says instead of the bare text
 */
export function badge(text, tone, label) {
  return h("span", { class: `badge ${tone}`, "aria-label": label }, text);
}

/** @param {number | null | undefined} status */
export function statusTone(status) {
  if (status === null || status === undefined) return "bad";
  if (status >= 500) return "bad";
  if (status >= 300) return "warn";
  return "ok";
}

/**
 * Runs `job` now and every `ms` while the page is visible; returns a function that stops it.
 * @param {number} ms
 * @param {() => unknown} job
 */
export function every(ms, job) {
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const tick = async () => {
    if (stopped) return;
    if (!document.hidden) {
      try {
        await job();
      } catch {
        // The next tick tries again; an action's own errors are shown where it was taken.
      }
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * One function that runs every stop given: what a view's mount returns.
 * @param {...(() => unknown)} stops
 * @returns {() => void}
 */
export function stopAll(...stops) {
  return () => {
    for (const stop of stops) stop();
  };
}
