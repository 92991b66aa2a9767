// @ts-check
/** The faults in force: a table of them (whom each is for, what it strikes, its effect, what is left) with buttons to remove them. */
import { as, client, ok } from "./api.js";
import { dataTable, h } from "./dom.js";
import { faultEffect, faultReach, faultTarget } from "./format.js";

/**
 * @param {import("./api.js").Schemas["Fault"][]} faults
 * @param {import("./app.js").Context} context
 * @param {import("./clock-panel.js").Act} act
 */
export function drawFaults(faults, context, act) {
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
