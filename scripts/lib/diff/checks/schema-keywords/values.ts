/** Values: `const` and `default` (a body's or a property's, and an optional parameter's, which calls rely on). */
import { defineFamily, flow, ruleAt, rulesBothWays, rulesFor } from "../define.ts";
import { keyword } from "./keyword.ts";

const BODY = ["body", "property"] as const;
const PARAMETER = ["parameter"] as const;

const family = defineFamily("schema keywords", import.meta.url, {
  "const-changed": flow("Constant value changed", ["error", "error"], rulesBothWays(["const-changed"])),
  "const-added": flow("Constant added", ["error", "info"], rulesBothWays(["const-added"])),
  "const-removed": flow("Constant removed", ["info", "error"], rulesBothWays(["const-removed"])),
  "default-changed": flow("Default value added, removed or changed (a body's or a property's)", ["info", "info"], {
    request: rulesFor("request", ["default-value-added", "default-value-removed", "default-value-changed"], BODY),
    response: rulesFor("response", ["default-value-added", "default-value-removed", "default-value-changed"], BODY),
  }),
  // An optional parameter's default is what the service assumes when a call leaves it out: changing it changes
  // what existing calls do (oasdiff: an error). A required parameter's default is never applied (documentation).
  "parameter-default-changed": flow(
    "An optional parameter's (or a header's) default added, removed or changed",
    ["error", "info"],
    {
      request: rulesFor(
        "request",
        ["default-value-added", "default-value-removed", "default-value-changed"],
        PARAMETER,
      ),
    },
  ),
});
export default family;

family.detector(
  "values",
  ["schema"],
  ["const-changed", "const-added", "const-removed", "default-changed", "parameter-default-changed"],
  ({ a, b, context }, out) => {
    const constant = keyword(a, b, "const");
    if (constant) {
      const { from, to, where, text } = constant;
      out.emit(from === undefined ? "const-added" : to === undefined ? "const-removed" : "const-changed", where, text);
    }
    const fallback = keyword(a, b, "default");
    if (!fallback) return;
    const action = fallback.from === undefined ? "added" : fallback.to === undefined ? "removed" : "changed";
    if (context.in !== "body" && context.top)
      return out.emit("parameter-default-changed", fallback.where, fallback.text, {
        oasdiff: ruleAt(out.flow, context, `default-value-${action}`),
      });
    out.emit("default-changed", fallback.where, fallback.text);
  },
);
