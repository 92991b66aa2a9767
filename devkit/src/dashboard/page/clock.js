// @ts-check
/**
 * Clock and faults: the sandbox clock (advance by a minute, an hour or a day, or to a time; freeze and
 * resume; whether due work has all run) and the faults in force, with a form to add one and buttons to
 * remove them.
 */
import { as, client, ok, partnerOperations } from "./api.js";
import { announce, dataTable, every, formatTime, h, replaceKeepingFocus, showProblem, stopAll } from "./dom.js";
import { faultEffect, faultFromForm, faultReach, faultTarget, formatUtc, parseUtc } from "./format.js";

const FAULT_REFRESH_MS = 2000;

const STEPS = [
  { label: "+1 minute", seconds: 60 },
  { label: "+1 hour", seconds: 3600 },
  { label: "+1 day", seconds: 86400 },
];

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mount(root, context) {
  const clockBox = h("div", {});
  const faultsBox = h("div", {});
  const faultForm = h("form", { class: "inline", "aria-label": "Add a fault" });
  root.append(
    h("h2", {}, "Clock"),
    clockBox,
    h("h2", {}, "Faults in force"),
    faultsBox,
    h("h3", {}, "Add a fault"),
    faultForm,
  );

  /**
   * @param {string} what
   * @param {() => Promise<unknown>} call
   */
  async function act(what, call) {
    try {
      await call();
      announce(what);
      await Promise.all([context.refreshClock(), refreshFaults()]);
    } catch (error) {
      showProblem(error);
    }
  }

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
    replaceKeepingFocus(controls, drawControls(drawnFrozen));
  }

  /** @param {boolean} frozen */
  function drawControls(frozen) {
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

  let seenFaults = "";
  async function refreshFaults() {
    const { faults } = await ok(client.GET("/_sandbox/faults"));
    const text = JSON.stringify(faults);
    if (text === seenFaults) return;
    seenFaults = text;
    replaceKeepingFocus(faultsBox, drawFaults(faults));
  }

  /** @param {import("./api.js").Schemas["Fault"][]} faults */
  function drawFaults(faults) {
    if (faults.length === 0) return [h("p", { class: "muted" }, "None: every call runs as usual.")];
    return [
      dataTable(
        "Faults in force, oldest first",
        ["Fault", "For", "Strikes", "Effect", "Left", "Hits", ""],
        faults.map((fault) =>
          h(
            "tr",
            { dataset: { fault: fault.id } },
            h("td", {}, h("code", {}, fault.id)),
            h("td", {}, fault.scope === "account" ? context.nameOf(fault.account) : "every account"),
            h("td", {}, faultTarget(fault)),
            h("td", {}, faultEffect(fault)),
            h("td", {}, faultReach(fault) || "until removed"),
            h("td", {}, String(fault.hits)),
            h(
              "td",
              {},
              h(
                "button",
                {
                  type: "button",
                  dataset: { key: `${fault.id}:remove` },
                  "aria-label": `Remove fault ${fault.id}`,
                  onclick: () =>
                    act(`fault ${fault.id} removed`, () =>
                      ok(
                        client.DELETE("/_sandbox/faults/{faultId}", {
                          params: { path: { faultId: fault.id } },
                          headers: as(fault.scope === "account" ? (fault.account ?? undefined) : undefined),
                        }),
                      ),
                    ),
                },
                "Remove",
              ),
            ),
          ),
        ),
      ),
      h(
        "button",
        {
          type: "button",
          dataset: { key: "faults-clear" },
          onclick: () => act("every fault removed", () => ok(client.DELETE("/_sandbox/faults"))),
        },
        "Remove every fault",
      ),
    ];
  }

  // The add form: the operations come from the partner contract.
  const operation = /** @type {HTMLSelectElement} */ (h("select", { id: "fault-operation", required: true }));
  const effect = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "fault-effect" },
      h("option", { value: "status" }, "answer with a status"),
      h("option", { value: "delay" }, "answer late"),
      h("option", { value: "drop" }, "drop the connection"),
      h("option", { value: "malformed" }, "malformed body"),
    )
  );
  const field = (
    /** @type {string} */ id,
    /** @type {string} */ label,
    /** @type {Record<string, unknown>} */ attributes,
  ) => {
    const input = /** @type {HTMLInputElement} */ (h("input", { id, ...attributes }));
    return { input, label: h("label", { for: id }, label, input) };
  };
  const status = field("fault-status", "Status", {
    type: "number",
    min: "200",
    max: "599",
    value: "503",
    style: "width: 5rem",
  });
  const retryAfter = field("fault-retry-after", "Retry-After (s)", { type: "number", min: "0", style: "width: 6rem" });
  const delay = field("fault-delay", "Delay (ms)", { type: "number", min: "0", max: "60000", style: "width: 6rem" });
  const times = field("fault-times", "Times (empty: until removed)", {
    type: "number",
    min: "1",
    value: "1",
    style: "width: 6rem",
  });
  const probability = field("fault-probability", "Probability", {
    type: "number",
    min: "0",
    max: "1",
    step: "0.05",
    style: "width: 6rem",
  });
  const scope = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "fault-scope" },
      h("option", { value: "account" }, "the chosen account"),
      h("option", { value: "" }, "every account"),
    )
  );
  faultForm.append(
    h("label", { for: "fault-operation" }, "Operation", operation),
    h("label", { for: "fault-effect" }, "Effect", effect),
    status.label,
    retryAfter.label,
    delay.label,
    times.label,
    probability.label,
    h("label", { for: "fault-scope" }, "For", scope),
    h("button", { type: "submit", class: "primary" }, "Add fault"),
  );
  faultForm.addEventListener("submit", (event) => {
    event.preventDefault();
    let fault;
    try {
      fault = faultFromForm({
        operationId: operation.value,
        effect: effect.value,
        status: status.input.value,
        retryAfter: retryAfter.input.value,
        delayMs: delay.input.value,
        times: times.input.value,
        probability: probability.input.value,
      });
    } catch (error) {
      showProblem(error);
      return;
    }
    const account = scope.value === "account" ? context.account() : undefined;
    act(`fault added: ${operation.value} ${faultEffect(fault)}`, () =>
      ok(client.POST("/_sandbox/faults", { headers: as(account), body: fault })),
    );
  });
  partnerOperations().then(
    (operations) =>
      operation.replaceChildren(
        ...operations.map((op) =>
          h("option", { value: op.operationId }, `${op.operationId} (${op.method} ${op.path})`),
        ),
      ),
    showProblem,
  );

  const current = context.clock();
  if (current) drawClock(current);
  return stopAll(context.onClock(drawClock), every(FAULT_REFRESH_MS, refreshFaults));
}
