/**
 * Webhooks as a whole: added and removed. What a webhook carries is judged like any message, in the receiver's
 * direction: its delivery (the service writes, the partner reads) by the `response-…` checks, the partner's
 * answer by the `request-…` checks.
 */
import { unstableNote } from "../pairs.ts";
import { defineFamily, one } from "./define.ts";
import { removal, removedOperations } from "./deprecation.ts";

const family = defineFamily("webhooks", import.meta.url, {
  "webhook-removed": one("webhook", "Webhook removed without deprecation", "error", ["webhook-removed"]),
  "webhook-removed-after-deprecation": one(
    "webhook",
    "Deprecated webhook removed (no sunset, or after its sunset)",
    "info",
  ),
  "webhook-added": one("webhook", "Webhook added", "info", ["webhook-added"]),
});
export default family;

const KINDS = ["webhook-removed", "webhook-removed-after-deprecation", "webhook-added"] as const;
family.detector("webhooks", ["item", "operation"], KINDS, (pair, out) => {
  if (pair.what !== "webhook") return;
  if (!pair.before && pair.after)
    return out.emit(
      "webhook-added",
      pair.on === "item" ? pair.label : pair.where,
      pair.on === "item" ? `webhook \`${pair.name}\` added` : "operation added",
    );
  for (const [where, op] of removedOperations(pair)) {
    if (unstableNote(op)) continue;
    const verdict = removal(pair.today, op);
    if (verdict.kind === "invalid") continue; // sunset-invalid (deprecation.ts)
    out.emit(
      verdict.kind === "after" ? "webhook-removed-after-deprecation" : "webhook-removed",
      where,
      `webhook removed: ${verdict.note}`,
    );
  }
});
