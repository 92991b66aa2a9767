/** Paths and operations: added, removed (without deprecation), renamed methods in the generated client, tags. */
import { code, stable, unstableNote } from "../pairs.ts";
import { defineFamily, one } from "./define.ts";
import { removal, removedAsPath } from "./deprecation.ts";

const family = defineFamily("paths and operations", import.meta.url, {
  "path-removed": one("document", "Path removed (an operation in it was neither deprecated nor alpha/draft)", "error", [
    "api-path-removed-without-deprecation",
  ]),
  "path-added": one("document", "Path added", "info", ["endpoint-added"]),
  "operation-removed": one("document", "Operation removed without deprecation", "error", [
    "api-removed-without-deprecation",
  ]),
  "operation-added": one("document", "Operation added", "info", ["endpoint-added"]),
  "operation-id-changed": one(
    "document",
    "operationId changed or removed (renames the generated client method)",
    "warning",
    ["api-operation-id-removed"],
    {
      why: "The typed client's method names come from operationIds: a rename breaks integrators' code without breaking the wire.",
    },
  ),
  "tags-changed": one("document", "Operation tags changed", "info", ["api-tag-removed", "api-tag-added"], {
    documentation: true,
  }),
});
export default family;

const KINDS = [
  "path-removed",
  "path-added",
  "operation-removed",
  "operation-added",
  "operation-id-changed",
  "tags-changed",
] as const;
family.detector("operations", ["item", "operation"], KINDS, (pair, out) => {
  if (pair.on === "item") {
    if (pair.what !== "path") return;
    if (pair.before && !pair.after && removedAsPath(pair))
      out.emit("path-removed", pair.label, `path \`${pair.name}\` removed`);
    if (!pair.before && pair.after) out.emit("path-added", pair.label, `path \`${pair.name}\` added`);
    return;
  }
  const { before, after, where } = pair;
  if (pair.what === "path" && before && !after && !unstableNote(before) && removal(pair.today, before).kind === "plain")
    out.emit("operation-removed", where, "operation removed: removed without deprecation");
  if (pair.what === "path" && !before && after) out.emit("operation-added", where, "operation added");
  if (!before || !after) return;
  if (before.operationId !== undefined && before.operationId !== after.operationId)
    out.emit("operation-id-changed", where, `operationId ${code(before.operationId)} → ${code(after.operationId)}`);
  if (stable(before.tags) !== stable(after.tags))
    out.emit("tags-changed", where, `tags ${code(before.tags)} → ${code(after.tags)}`);
});
