/** Paths and operations: added, removed (without deprecation), renamed methods in the generated client, tags. */
import { code, stable, unstableNote } from "../pairs.ts";
import { defineFamily } from "./define.ts";
import { removal, removedAsPath } from "./deprecation.ts";

const family = defineFamily("paths and operations", import.meta.url);
export default family;

family.detector("operations", ["item", "operation"], (pair, out) => {
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

// scope | kind | detector | level (request, response) | title | oasdiff's check and level (request, response)
family.table(`
  doc | path-removed         | operations | error   | Path removed (an operation in it was neither deprecated nor alpha/draft) | api-path-removed-without-deprecation error
  doc | path-added           | operations | info    | Path added | endpoint-added info
  doc | operation-removed    | operations | error   | Operation removed without deprecation | api-removed-without-deprecation error
  doc | operation-added      | operations | info    | Operation added | endpoint-added info
  doc | operation-id-changed | operations | warning | operationId changed (renames the generated client method) | api-operation-id-removed info
  doc | tags-changed         | operations | info    | Operation tags changed | api-tag-removed info | documentation
`);
