/** Object shape: which properties an object may have beyond those it names. */
import { defineFamily, flow, ruleAt, rulesBothWays, rulesFor } from "../define.ts";
import { presence } from "./keyword.ts";

const family = defineFamily("schema keywords", import.meta.url, {
  "properties-narrowed": flow(
    "Additional properties narrowed (additionalProperties, patternProperties, propertyNames, unevaluated…)",
    ["error", "info"],
    {
      request: rulesFor("request", ["property-names-added", "pattern-property-added", "unevaluated-properties-added"]),
      response: rulesFor("response", [
        "property-names-added",
        "pattern-property-added",
        "unevaluated-properties-added",
      ]),
    },
  ),
  "properties-widened": flow(
    "Additional properties widened",
    ["info", "error"],
    rulesBothWays(["property-names-removed", "pattern-property-removed", "unevaluated-properties-removed"]),
  ),
  "closed-object-opened": flow(
    "additionalProperties: false removed (undeclared properties allowed; readers ignore them, as an added optional field)",
    ["info", "info"],
  ),
});
export default family;

/** Which properties an object may have beyond those it names. */
family.detector(
  "objectShape",
  ["schema"],
  ["properties-narrowed", "properties-widened", "closed-object-opened"],
  ({ a, b, here, context }, out) => {
    const names = {
      additionalProperties: undefined,
      unevaluatedProperties: "unevaluated-properties",
      propertyNames: "property-names",
    } as const;
    for (const keyword of ["additionalProperties", "unevaluatedProperties", "propertyNames"] as const) {
      const found = presence(a.subschemas.get(keyword), b.subschemas.get(keyword), b, keyword);
      if (!found) continue;
      // Undeclared properties may now appear: like an optional field added, readers ignore what they do not know.
      if (found.opened && keyword !== "propertyNames") {
        out.emit("closed-object-opened", found.where, found.text);
        continue;
      }
      const name = names[keyword];
      const rule = name ? ruleAt(out.flow, context, `${name}-${found.narrows ? "added" : "removed"}`) : null;
      out.emit(found.narrows ? "properties-narrowed" : "properties-widened", found.where, found.text, {
        oasdiff: rule,
      });
    }
    for (const key of a.patternProperties.keys())
      if (!b.patternProperties.has(key))
        out.emit("properties-widened", here, `patternProperties \`${key}\` removed`, {
          oasdiff: ruleAt(out.flow, context, "pattern-property-removed"),
        });
    for (const key of b.patternProperties.keys())
      if (!a.patternProperties.has(key))
        out.emit("properties-narrowed", here, `patternProperties \`${key}\` added`, {
          oasdiff: ruleAt(out.flow, context, "pattern-property-added"),
        });
  },
);
