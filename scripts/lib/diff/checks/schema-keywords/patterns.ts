/** Patterns: one added, removed (or generalised to accept any string), or changed. */
import { code } from "../../pairs.ts";
import { defineFamily, flow, rulesBothWays, rulesFor } from "../define.ts";
import { keyword } from "./keyword.ts";

const family = defineFamily("schema keywords", import.meta.url, {
  "pattern-added": flow("Pattern added", ["error", "info"], rulesBothWays(["pattern-added"])),
  "pattern-removed": flow(
    "Pattern removed, or generalised to accept any string",
    ["info", "error"],
    {
      request: rulesFor("request", ["pattern-removed", "pattern-generalized"]),
      response: rulesFor("response", ["pattern-removed"]),
    },
    { why: { response: "Readers that validate against the old pattern may now get values it rejects." } },
  ),
  "pattern-changed": flow("Pattern changed", ["error", "error"], rulesBothWays(["pattern-changed"]), {
    why: {
      request:
        "A changed pattern narrows some values and widens others; the gate cannot tell which side breaks, and one does.",
      response:
        "A changed pattern narrows some values and widens others; the gate cannot tell which side breaks, and one does.",
    },
  }),
});
export default family;

/** A pattern that accepts any string says nothing; so does an empty one. (`.+` refuses the empty string.) */
const ANY_PATTERN = /^(\^?(\.\*|\[\\s\\S\]\*)\$?)?$/;

family.detector("patterns", ["schema"], ["pattern-added", "pattern-removed", "pattern-changed"], ({ a, b }, out) => {
  const change = keyword(a, b, "pattern");
  if (!change) return;
  const anyBefore = change.from === undefined || ANY_PATTERN.test(String(change.from));
  const anyAfter = change.to === undefined || ANY_PATTERN.test(String(change.to));
  if (anyBefore && anyAfter) return;
  const kind = anyAfter ? "pattern-removed" : anyBefore ? "pattern-added" : "pattern-changed";
  out.emit(kind, change.where, `pattern ${code(change.from)} → ${code(change.to)}`);
});
