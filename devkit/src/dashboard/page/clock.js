// @ts-check
/**
 * Clock and faults: the sandbox clock (advance by a minute, an hour or a day, or to a time; freeze and
 * resume; whether due work has all run) and the faults in force, with a form to add one and buttons to
 * remove them.
 */
import { client, ok } from "./api.js";
import { faultAdder } from "./clock-fault-form.js";
import { drawFaults } from "./clock-faults.js";
import { clockPanel } from "./clock-panel.js";
import { announce, every, h, replaceKeepingFocus, showProblem, stopAll } from "./dom.js";

const FAULT_REFRESH_MS = 2000;

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

  const drawClock = clockPanel(clockBox, act);

  let seenFaults = "";
  async function refreshFaults() {
    const { faults } = await ok(client.GET("/_sandbox/faults"));
    const text = JSON.stringify(faults);
    if (text === seenFaults) return;
    seenFaults = text;
    replaceKeepingFocus(faultsBox, drawFaults(faults, context, act));
  }

  faultAdder(faultForm, context, act);

  const current = context.clock();
  if (current) drawClock(current);
  return stopAll(context.onClock(drawClock), every(FAULT_REFRESH_MS, refreshFaults));
}
