// @ts-check
/**
 * The clock's panel: what the sandbox clock reads (now, how it runs, due work, pending tasks, next due) and its
 * controls (advance by a step or to a time, freeze or resume, reset the sandbox).
 */
import { client, ok } from "./api.js";
import { formatTime, h, replaceKeepingFocus, showProblem } from "./dom.js";
import { formatUtc, parseUtc } from "./format.js";

const STEPS = [
  { label: "+1 minute", seconds: 60 },
  { label: "+1 hour", seconds: 3600 },
  { label: "+1 day", seconds: 86400 },
];

/** @typedef {(what: string, call: () => Promise<unknown>) => Promise<void>} Act */

/**
 * The panel, drawn into `clockBox`; `drawClock` draws a reading of the clock.
 * @param {HTMLElement} clockBox
 * @param {Act} act
 */
export function clockPanel(clockBox, act) {
  // Text, not datetime-local: the browser would show that in the reader's locale (a US 12-hour clock), beside
  // the 24-hour UTC times everywhere else on the page.
  const toInput = /** @type {HTMLInputElement} */ (
    h("input", {
      id: "advance-to",
      type: "text",
      inputmode: "numeric",
      autocomplete: "off",
      spellcheck: "false",
      placeholder: "2026-11-23 09:00:00",
      "aria-describedby": "advance-to-help",
      size: "22",
    })
  );
  const info = h("div", {});
  const controls = h("div", {});
  clockBox.append(info, controls);
  /** @type {boolean | undefined} */
  let drawnFrozen;

  /** @param {import("./app.js").Clock} clock */
  function drawClock(clock) {
    const rows = [
      ["Now", formatTime(clock.now)],
      [
        "Runs",
        clock.frozen
          ? "frozen: moves only when advanced"
          : `with real time${clock.speed && clock.speed !== 1 ? `, ${clock.speed}x` : ""}`,
      ],
      ["Due work", clock.status === "advancing" ? "running" : "all run (ready)"],
      ["Pending tasks", String(clock.pendingTasks ?? "–")],
      ["Next due", formatTime(clock.nextDueAt)],
    ];
    info.replaceChildren(
      h(
        "dl",
        { class: "row", "aria-label": "Clock" },
        ...rows.flatMap(([term, value]) => [h("dt", {}, `${term}:`), h("dd", { dataset: { clock: term } }, value)]),
      ),
    );
    if (!toInput.value) toInput.value = formatUtc(clock.now).replace(" UTC", "");
    // The buttons are drawn again only when freezing changes, so the focus stays where it is.
    if (drawnFrozen === Boolean(clock.frozen)) return;
    drawnFrozen = Boolean(clock.frozen);
    replaceKeepingFocus(controls, drawControls(drawnFrozen, toInput, act));
  }

  return drawClock;
}

/** The clock's controls: the steps, advance to a time, freeze or resume, reset. */
/**
 * @param {boolean} frozen
 * @param {HTMLInputElement} toInput
 * @param {Act} act
 */
function drawControls(frozen, toInput, act) {
  return h(
    "div",
    { class: "row", role: "group", "aria-label": "Advance the clock" },
    ...STEPS.map((step) =>
      h(
        "button",
        {
          type: "button",
          class: "primary",
          dataset: { key: `advance-${step.seconds}` },
          "aria-label": `Advance the clock ${step.label.slice(1)}`,
          onclick: () =>
            act(`clock advanced ${step.label.slice(1)}`, () =>
              ok(client.POST("/_sandbox/clock/advance", { body: { seconds: step.seconds } })),
            ),
        },
        step.label,
      ),
    ),
    h(
      "form",
      {
        class: "row",
        onsubmit: (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          const to = parseUtc(toInput.value);
          if (to === undefined) {
            showProblem(
              new Error(`Advance to: "${toInput.value}" is no time; write it as 2026-11-23 09:00:00 (24-hour, UTC)`),
            );
            return;
          }
          act(`clock advanced to ${formatTime(to)}`, () =>
            ok(client.POST("/_sandbox/clock/advance", { body: { to } })),
          );
        },
      },
      h("label", { for: "advance-to" }, "Advance to (UTC)"),
      toInput,
      h("span", { id: "advance-to-help", class: "muted" }, "YYYY-MM-DD HH:MM:SS, 24-hour"),
      h("button", { type: "submit", dataset: { key: "advance-to" } }, "Advance"),
    ),
    frozen
      ? h(
          "button",
          {
            type: "button",
            dataset: { key: "resume" },
            onclick: () => act("clock resumed", () => ok(client.POST("/_sandbox/clock/resume"))),
          },
          "Resume",
        )
      : h(
          "button",
          {
            type: "button",
            dataset: { key: "freeze" },
            onclick: () => act("clock frozen", () => ok(client.POST("/_sandbox/clock/freeze"))),
          },
          "Freeze",
        ),
    h(
      "button",
      {
        type: "button",
        dataset: { key: "reset" },
        onclick: () => {
          if (confirm("Reset the sandbox? Every account goes back to its seeded state."))
            act("sandbox reset", () => ok(client.POST("/_sandbox/reset")));
        },
      },
      "Reset the sandbox…",
    ),
  );
}
