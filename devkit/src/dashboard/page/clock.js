// @ts-check
/**
 * Clock and faults: the sandbox clock (advance by a minute, an hour or a day, or to a time; freeze and
 * resume; whether due work has all run) and the faults in force, with a form to add one and buttons to
 * remove them.
 */
import { control, encode, partnerOperations } from "./api.js";
import { announce, every, formatTime, h, replaceKeepingFocus, showProblem, stopAll } from "./dom.js";

const FAULT_REFRESH_MS = 2000;

const STEPS = [
  { label: "+1 minute", seconds: 60 },
  { label: "+1 hour", seconds: 3600 },
  { label: "+1 day", seconds: 86400 },
];

/**
 * A fault's effect in words.
 * @param {any} fault
 */
export function describeEffect(fault) {
  const parts = [];
  if (fault.status !== undefined) parts.push(`answers ${fault.status}`);
  if (fault.retryAfter !== undefined) parts.push(`Retry-After ${fault.retryAfter} s`);
  if (fault.delayMs !== undefined) parts.push(`${fault.delayMs} ms late`);
  if (fault.drop) parts.push("drops the connection");
  if (fault.malformed) parts.push("cuts the body short");
  return parts.join(", ");
}

/**
 * The fault a form asks for, as createFault takes it; an error names the field that is wrong.
 * @param {{ operationId: string, effect: string, status: string, retryAfter: string, delayMs: string, times: string, probability: string }} form
 */
export function faultFromForm(form) {
  /** @type {Record<string, unknown>} */
  const fault = { operationId: form.operationId };
  /** @param {string} text @param {string} name */
  const integer = (text, name) => {
    const value = Number(text);
    if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got "${text}"`);
    return value;
  };
  if (!form.operationId) throw new Error("choose the operation the fault strikes");
  if (form.effect === "status") {
    fault.status = integer(form.status, "Status");
    if (form.retryAfter) fault.retryAfter = integer(form.retryAfter, "Retry-After");
  } else if (form.effect === "drop") fault.drop = true;
  else if (form.effect === "malformed") fault.malformed = true;
  if (form.delayMs) fault.delayMs = integer(form.delayMs, "Delay");
  else if (form.effect === "delay") throw new Error("a delay fault needs the delay in milliseconds");
  if (form.times) fault.times = integer(form.times, "Times");
  if (form.probability) {
    const probability = Number(form.probability);
    if (!(probability > 0 && probability <= 1))
      throw new Error(`Probability must be above 0 and at most 1, got "${form.probability}"`);
    fault.probability = probability;
  }
  return fault;
}

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

  const toInput = /** @type {HTMLInputElement} */ (h("input", { id: "advance-to", type: "datetime-local", step: "1" }));
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
    if (!toInput.value) toInput.value = clock.now.slice(0, 19);
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
                control("POST", "/_sandbox/clock/advance", { body: { seconds: step.seconds } }),
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
            const to = new Date(`${toInput.value}Z`);
            if (Number.isNaN(to.getTime())) {
              showProblem(new Error("Advance to: enter a date and time"));
              return;
            }
            act(`clock advanced to ${formatTime(to.toISOString())}`, () =>
              control("POST", "/_sandbox/clock/advance", { body: { to: to.toISOString() } }),
            );
          },
        },
        h("label", { for: "advance-to" }, "Advance to (UTC)"),
        toInput,
        h("button", { type: "submit", dataset: { key: "advance-to" } }, "Advance"),
      ),
      frozen
        ? h(
            "button",
            {
              type: "button",
              dataset: { key: "resume" },
              onclick: () => act("clock resumed", () => control("POST", "/_sandbox/clock/resume")),
            },
            "Resume",
          )
        : h(
            "button",
            {
              type: "button",
              dataset: { key: "freeze" },
              onclick: () => act("clock frozen", () => control("POST", "/_sandbox/clock/freeze")),
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
              act("sandbox reset", () => control("POST", "/_sandbox/reset"));
          },
        },
        "Reset the sandbox…",
      ),
    );
  }

  let seenFaults = "";
  async function refreshFaults() {
    const { faults } = await control("GET", "/_sandbox/faults");
    const text = JSON.stringify(faults);
    if (text === seenFaults) return;
    seenFaults = text;
    replaceKeepingFocus(faultsBox, drawFaults(faults));
  }

  /** @param {any[]} faults */
  function drawFaults(faults) {
    if (faults.length === 0) return [h("p", { class: "muted" }, "None: every call runs as usual.")];
    return [
      h(
        "table",
        {},
        h("caption", { class: "visually-hidden" }, "Faults in force, oldest first"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["Fault", "For", "Strikes", "Effect", "Left", "Hits", ""].map((t) => h("th", { scope: "col" }, t)),
          ),
        ),
        h(
          "tbody",
          {},
          ...faults.map((fault) =>
            h(
              "tr",
              { dataset: { fault: fault.id } },
              h("td", {}, h("code", {}, fault.id)),
              h("td", {}, fault.scope === "account" ? h("code", {}, fault.account ?? "an account") : "every account"),
              h("td", {}, fault.operationId ?? `${fault.method ?? "any method"} ${fault.path ?? ""}`),
              h("td", {}, describeEffect(fault)),
              h(
                "td",
                {},
                fault.remaining !== undefined ? `${fault.remaining} call(s)` : "until removed",
                fault.probability !== undefined ? ` at ${fault.probability * 100}%` : "",
              ),
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
                        control("DELETE", `/_sandbox/faults/${encode(fault.id)}`, {
                          account: fault.scope === "account" ? fault.account : undefined,
                        }),
                      ),
                  },
                  "Remove",
                ),
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
          onclick: () => act("every fault removed", () => control("DELETE", "/_sandbox/faults")),
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
    act(`fault added: ${operation.value} ${describeEffect(fault)}`, () =>
      control("POST", "/_sandbox/faults", { account, body: fault }),
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
