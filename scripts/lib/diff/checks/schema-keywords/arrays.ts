/** Arrays: `items`, `contains`, `unevaluatedItems` and tuple entries (`prefixItems`). */
import { locationOf } from "../../resolve.ts";
import { defineFamily, flow, ruleAt, rulesBothWays } from "../define.ts";
import { presence } from "./keyword.ts";

const family = defineFamily("schema keywords", import.meta.url, {
  "items-narrowed": flow(
    "Array items, contains or unevaluatedItems added or narrowed",
    ["error", "info"],
    rulesBothWays(["contains-added", "unevaluated-items-added"]),
  ),
  "items-widened": flow(
    "Array items, contains or unevaluatedItems removed or widened",
    ["info", "error"],
    rulesBothWays(["contains-removed", "unevaluated-items-removed"]),
  ),
  "prefix-items-changed": flow(
    "prefixItems entry added or removed where it differs from items",
    ["error", "error"],
    rulesBothWays(["prefix-items-added", "prefix-items-removed"]),
    {
      why: {
        request:
          "A tuple entry differing from `items` changes what one position accepts, narrowing or widening it by value.",
        response:
          "A tuple entry differing from `items` changes what one position accepts, narrowing or widening it by value.",
      },
    },
  ),
});
export default family;

/** `items`, `contains`, `unevaluatedItems` and tuple entries (`prefixItems`). */
family.detector(
  "arrays",
  ["schema"],
  ["items-narrowed", "items-widened", "prefix-items-changed"],
  ({ a, b, differs, context }, out) => {
    for (const keyword of ["items", "contains", "unevaluatedItems"] as const) {
      const found = presence(a.subschemas.get(keyword), b.subschemas.get(keyword), b, keyword);
      if (!found) continue;
      const name = keyword === "items" ? undefined : keyword === "contains" ? "contains" : "unevaluated-items";
      const rule = name ? ruleAt(out.flow, context, `${name}-${found.narrows ? "added" : "removed"}`) : null;
      out.emit(found.narrows ? "items-narrowed" : "items-widened", found.where, found.text, { oasdiff: rule });
    }
    // A position without a tuple entry is governed by `items`: an entry added or removed changes the position
    // only where it differs from `items`. Which way it goes depends on both, so it counts both ways.
    const before = a.prefixItems?.nodes ?? [];
    const after = b.prefixItems?.nodes ?? [];
    for (let i = Math.min(before.length, after.length); i < Math.max(before.length, after.length); i++) {
      const x = before[i];
      const y = after[i];
      if (y && differs(a.subschemas.get("items") ?? { ...y, schema: {} }, y))
        out.emit("prefix-items-changed", locationOf(y), `prefixItems entry ${i} added`, {
          oasdiff: ruleAt(out.flow, context, "prefix-items-added"),
        });
      else if (x && differs(x, b.subschemas.get("items") ?? { ...x, schema: {} }))
        out.emit("prefix-items-changed", locationOf(x), `prefixItems entry ${i} removed`, {
          oasdiff: ruleAt(out.flow, context, "prefix-items-removed"),
        });
    }
  },
);
