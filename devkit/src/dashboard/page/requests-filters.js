// @ts-check
/** The request log's filters: whose calls, operation or path, status, faulted only, answers not as declared. */
import { h } from "./dom.js";

/** @param {import("./app.js").Context} context */
export function logFilters(context) {
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
  /** The filter as format.js's `matches` reads it. */
  const filter = () => ({
    account: scope.value === "account" ? context.account() : "",
    text: text.value.trim(),
    status: status.value,
    faulted: faulted.checked,
    mismatched: mismatched.checked,
  });
  /**
   * The filters' group, with the buttons given after them.
   * @param {...HTMLElement} buttons
   */
  const group = (...buttons) =>
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
      ...buttons,
    );
  /** @param {() => void} redraw */
  const onChange = (redraw) => {
    for (const input of [scope, status, faulted, mismatched]) input.addEventListener("change", redraw);
    text.addEventListener("input", redraw);
  };
  return { group, filter, nameScope, onChange, byAccount: () => scope.value === "account" };
}
