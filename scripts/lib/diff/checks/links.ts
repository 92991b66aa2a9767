/**
 * Response links (OpenAPI `links`): how a value from one answer feeds another operation's request. A partner who
 * follows a link (`operationId` or `operationRef`, with its `parameters` and `requestBody` expressions) breaks
 * when it goes or points elsewhere. oasdiff has no rule for links (its checker/rules.go names none; its diff
 * compares them without judging), so none of these has an oasdiff counterpart.
 */
import { code, stable } from "../pairs.ts";
import type { JsonObject } from "../resolve.ts";
import { defineFamily, one } from "./define.ts";

const family = defineFamily("links", import.meta.url, {
  "link-removed": one("response", "Response link removed (partners following it lose the way on)", "warning"),
  "link-retargeted": one(
    "response",
    "Response link points to another operation, or passes other values (operationId, operationRef, parameters, requestBody, server)",
    "warning",
  ),
  "link-added": one("response", "Response link added", "info"),
});
export default family;

/** What a link does: where it leads and what it passes. Its description is documentation. */
const TARGET_KEYS = ["operationId", "operationRef", "parameters", "requestBody", "server"] as const;

family.detector("links", ["links"], ["link-removed", "link-retargeted", "link-added"], (pair, out) => {
  const { place, before, after } = pair;
  for (const [name, link] of before) {
    const match = after.get(name);
    if (!match) {
      out.emit("link-removed", `${place} link ${name}`, `link \`${name}\` removed (was ${describe(link)})`);
      continue;
    }
    const changed = TARGET_KEYS.filter((key) => stable(link[key]) !== stable(match[key]));
    if (changed.length > 0)
      out.emit(
        "link-retargeted",
        `${place} link ${name}`,
        changed.map((key) => `${key} ${code(link[key])} → ${code(match[key])}`).join(", "),
      );
  }
  for (const [name, link] of after)
    if (!before.has(name))
      out.emit("link-added", `${place} link ${name}`, `link \`${name}\` added (${describe(link)})`);
});

function describe(link: JsonObject): string {
  const to = link.operationId ?? link.operationRef;
  return to === undefined ? "with no target" : `to ${code(to)}`;
}
