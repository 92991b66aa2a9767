/** Composition: `oneOf`/`anyOf` variants, `allOf` members, `if`/`then`/`else` and `dependentSchemas`. */
import { stable } from "../../pairs.ts";
import { locationOf, variantName } from "../../resolve.ts";
import { defineFamily, flow, ruleAt, rulesBothWays } from "../define.ts";

const family = defineFamily("schema keywords", import.meta.url, {
  "variant-removed": flow(
    "oneOf/anyOf variant removed",
    ["error", "info"],
    rulesBothWays(["one-of-removed", "any-of-removed"]),
  ),
  "variant-added": flow(
    "oneOf/anyOf variant added",
    ["info", "error"],
    rulesBothWays(["one-of-added", "any-of-added"]),
    { why: { response: "A reader meets values of a shape it never saw, whether the list is a oneOf or an anyOf." } },
  ),
  "allof-member-added": flow("allOf member added", ["error", "info"], rulesBothWays(["all-of-added"])),
  // Request: a warning, as oasdiff rates it (a removed member may have carried what the service relies on).
  "allof-member-removed": flow("allOf member removed", ["warning", "error"], rulesBothWays(["all-of-removed"]), {
    why: { response: "Readers get values the removed member used to exclude." },
  }),
  "conditional-changed": flow("Conditional rule (if/then/else) condition changed", ["error", "error"]),
  "conditional-added": flow(
    "Conditional rule (if/then/else) or dependent schema added",
    ["error", "info"],
    rulesBothWays(["if-added", "then-added", "else-added", "dependent-schema-added"]),
  ),
  "conditional-removed": flow(
    "Conditional rule (if/then/else) or dependent schema removed",
    ["info", "error"],
    rulesBothWays(["if-removed", "then-removed", "else-removed", "dependent-schema-removed"]),
  ),
});
export default family;

family.detector("variants", ["schema"], ["variant-removed", "variant-added"], ({ a, b, context }, out) => {
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const rule = (action: "added" | "removed") => ({
      oasdiff: ruleAt(out.flow, context, `${keyword === "oneOf" ? "one-of" : "any-of"}-${action}`),
    });
    const before = a.variants.filter((v) => v.keyword === keyword);
    const after = b.variants.filter((v) => v.keyword === keyword);
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const x = before[i];
      const y = after[i];
      if (!x || !y) {
        out.emit(
          y ? "variant-removed" : "variant-added",
          locationOf((y ?? x)!.at),
          `${keyword} ${y ? "added (narrows to its variants)" : "removed"}`,
          rule(y ? "removed" : "added"),
        );
        continue;
      }
      const names = (list: typeof x) =>
        new Map(list.nodes.map((node, index) => [variantName(node.schema, index), node]));
      const [was, now] = [names(x), names(y)];
      for (const [name, node] of was)
        if (!now.has(name))
          out.emit("variant-removed", locationOf(node), `${keyword} variant \`${name}\` removed`, rule("removed"));
      for (const [name, node] of now)
        if (!was.has(name))
          out.emit("variant-added", locationOf(node), `${keyword} variant \`${name}\` added`, rule("added"));
    }
  }
});

/** The merged view already compares what members say; this reports members appearing and disappearing. */
family.detector("allOf", ["schema"], ["allof-member-added", "allof-member-removed"], ({ a, b, here }, out) => {
  for (const [name, member] of b.allOf)
    if (!a.allOf.has(name) && !member.annotationOnly)
      out.emit("allof-member-added", here, `allOf member \`${name}\` added`);
  for (const [name, member] of a.allOf)
    if (!b.allOf.has(name) && !member.annotationOnly)
      out.emit("allof-member-removed", here, `allOf member \`${name}\` removed`);
});

family.detector(
  "conditionals",
  ["schema"],
  ["conditional-changed", "conditional-added", "conditional-removed"],
  ({ a, b, here }, out) => {
    for (let i = 0; i < Math.max(a.conditionals.length, b.conditionals.length); i++) {
      const before = a.conditionals[i];
      const after = b.conditionals[i];
      if (!before || !after) {
        out.emit(
          after ? "conditional-added" : "conditional-removed",
          locationOf((after ?? before)!.at),
          `if/then/else rule ${after ? "added" : "removed"}`,
        );
        continue;
      }
      // Any change to the condition changes which instances a rule applies to: not classifiable by direction.
      if (stable(before.if?.schema) !== stable(after.if?.schema))
        out.emit("conditional-changed", locationOf(after.if ?? after.at), "the `if` condition changed");
      for (const part of ["then", "else"] as const) {
        const x = before[part];
        const y = after[part];
        if (!x !== !y)
          out.emit(
            y ? "conditional-added" : "conditional-removed",
            locationOf((y ?? x)!),
            `\`${part}\` branch ${y ? "added" : "removed"}`,
          );
      }
    }
    for (const key of a.dependentSchemas.keys())
      if (!b.dependentSchemas.has(key)) out.emit("conditional-removed", here, `dependentSchemas \`${key}\` removed`);
    for (const key of b.dependentSchemas.keys())
      if (!a.dependentSchemas.has(key)) out.emit("conditional-added", here, `dependentSchemas \`${key}\` added`);
  },
);
