// @ts-check
/** The form that adds a fault: the operation (from the partner contract), the effect and its figures, and whom it is for. */
import { as, client, ok, partnerOperations } from "./api.js";
import { h, showProblem } from "./dom.js";
import { faultEffect, faultFromForm } from "./format.js";

/**
 * Fills `faultForm` and answers its submit.
 * @param {HTMLElement} faultForm
 * @param {import("./app.js").Context} context
 * @param {import("./clock-panel.js").Act} act
 */
export function faultAdder(faultForm, context, act) {
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
}
