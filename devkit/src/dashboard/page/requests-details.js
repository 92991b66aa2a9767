// @ts-check
/** The request log's side panel: one call whole, its status, fault, the contract's verdict and both bodies. */
import { badge, formatDuration, h, pretty, statusTone } from "./dom.js";
import { faultEffect } from "./format.js";

/**
 * What the panel shows of a call.
 * @param {import("./requests-table.js").LoggedCall} call
 * @param {import("./app.js").Context} context
 */
export function callDetails(call, context) {
  const issues = call.contract?.issues ?? [];
  return [
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
  ];
}

/** The panel, before a call is chosen. */
export function detailsPanel() {
  return h(
    "aside",
    { "aria-label": "The selected call" },
    h("p", { class: "muted" }, "Choose a call to see its bodies."),
  );
}
