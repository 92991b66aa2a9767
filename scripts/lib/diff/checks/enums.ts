/** Enumerations: `enum` values and `x-extensible-enum` (an enum readers must expect to grow). */
import { code, stable } from "../pairs.ts";
import { locationOf } from "../resolve.ts";
import { defineFamily, flow } from "./define.ts";

const family = defineFamily("enums", import.meta.url, {
  "enum-value-removed": flow("Enum value removed", ["error", "info"], {
    request: [
      "request-property-enum-value-removed",
      "request-parameter-enum-value-removed",
      "request-parameter-property-enum-value-removed",
      "request-body-enum-value-removed",
    ],
    response: ["response-property-enum-value-removed", "response-mediatype-enum-value-removed"],
  }),
  "enum-value-added": flow(
    "Enum value added (readers may not handle it)",
    ["info", "error"],
    {
      request: [
        "request-property-enum-value-added",
        "request-parameter-enum-value-added",
        "request-parameter-property-enum-value-added",
      ],
      response: ["response-property-enum-value-added"],
    },
    {
      why: {
        response:
          "Readers that switch over the values without a default branch break on a new one; `x-extensible-enum` is the way to say the list may grow.",
      },
    },
  ),
  "enum-added": flow("Enum added (the field was free before)", ["error", "info"], {
    request: [
      "request-property-became-enum",
      "request-body-became-enum",
      "request-parameter-became-enum",
      "request-header-property-became-enum",
    ],
  }),
  "enum-removed": flow("Enum removed (any value allowed now)", ["info", "warning"]),
  "extensible-enum-value-removed": flow("x-extensible-enum value removed", ["error", "info"], {
    request: ["request-property-x-extensible-enum-value-removed", "request-parameter-x-extensible-enum-value-removed"],
  }),
  "extensible-enum-value-added": flow("x-extensible-enum value added (readers must handle unknown values)", [
    "info",
    "info",
  ]),
});
export default family;

family.detector(
  "enumValues",
  ["schema"],
  ["enum-value-removed", "enum-value-added", "enum-added", "enum-removed"],
  ({ a, b }, out) => {
    const from = a.enum;
    const to = b.enum;
    if (!from && !to) return;
    const where = locationOf((to ?? from)!.at);
    if (!from) return out.emit("enum-added", where, `enum added: ${to!.values.map(code).join(", ")}`);
    if (!to) return out.emit("enum-removed", where, `enum removed (was ${from.values.map(code).join(", ")})`);
    const before = new Set(from.values.map(stable));
    const after = new Set(to.values.map(stable));
    const removed = from.values.filter((value) => !after.has(stable(value)));
    const added = to.values.filter((value) => !before.has(stable(value)));
    if (removed.length > 0)
      out.emit("enum-value-removed", where, `enum values removed: ${removed.map(code).join(", ")}`);
    if (added.length > 0) {
      const hint = out.flow === "toPartner" ? "; partners reading this value may not handle it" : "";
      out.emit("enum-value-added", where, `enum values added: ${added.map(code).join(", ")}${hint}`);
    }
  },
);

family.detector(
  "extensibleEnum",
  ["schema"],
  ["extensible-enum-value-removed", "extensible-enum-value-added"],
  ({ a, b }, out) => {
    const x = a.keywords.get("x-extensible-enum");
    const y = b.keywords.get("x-extensible-enum");
    if ((!x && !y) || stable(x?.value) === stable(y?.value)) return;
    const where = locationOf((y ?? x)!.at);
    const before = Array.isArray(x?.value) ? x.value : [];
    const after = Array.isArray(y?.value) ? y.value : [];
    const removed = before.filter((value) => !after.some((other) => stable(other) === stable(value)));
    const added = after.filter((value) => !before.some((other) => stable(other) === stable(value)));
    if (removed.length > 0)
      out.emit(
        "extensible-enum-value-removed",
        where,
        `x-extensible-enum values removed: ${removed.map(code).join(", ")}`,
      );
    if (added.length > 0)
      out.emit("extensible-enum-value-added", where, `x-extensible-enum values added: ${added.map(code).join(", ")}`);
  },
);
