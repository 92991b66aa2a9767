/**
 * Deprecation, sunset and stability: what may be removed, when (`deprecated` and `x-sunset`), and what may change
 * freely (`x-stability-level` draft or alpha).
 */
import { code, type ItemPair, type PairOf, STABILITY, stable, sunsetDay, unstableNote } from "../pairs.ts";
import { type JsonObject, locationOf } from "../resolve.ts";
import { defineFamily, type Out } from "./define.ts";

const family = defineFamily("deprecation and sunset", import.meta.url);
export default family;

export type Removal = "plain" | "after" | "before" | "invalid";

/** How removing this operation (or parameter) counts: deprecated ones may go, after their sunset. */
export function removal(today: string, owner: JsonObject): { kind: Removal; note: string } {
  if (owner.deprecated !== true) return { kind: "plain", note: "removed without deprecation" };
  const sunset = owner["x-sunset"];
  if (sunset === undefined) return { kind: "after", note: "was deprecated, no sunset date" };
  const day = sunsetDay(sunset);
  if (!day) return { kind: "invalid", note: `x-sunset ${code(sunset)} is not a date` };
  if (day > today) return { kind: "before", note: `removed before its sunset ${day}` };
  return { kind: "after", note: `deprecated, sunset ${day} has passed` };
}

/** A path removed with an operation that was neither deprecated nor unstable is reported once, as the path. */
export function removedAsPath(pair: ItemPair): boolean {
  return (
    pair.what === "path" &&
    [...pair.ops.values()].some((op) => !unstableNote(op) && removal(pair.today, op).kind === "plain")
  );
}

/** The operations a removal reports one by one: those of a removed item (unless reported as the path), or one. */
export function removedOperations(pair: PairOf<"item" | "operation">): [string, JsonObject][] {
  if (pair.on === "item") {
    if (pair.after || removedAsPath(pair)) return [];
    return [...pair.ops].map(([method, op]) => [pair.where(method), op]);
  }
  return pair.before && !pair.after ? [[pair.where, pair.before]] : [];
}

function sunsetChange(out: Out, where: string, before: JsonObject, after: JsonObject): void {
  const from = before["x-sunset"];
  const to = after["x-sunset"];
  if (stable(from) === stable(to)) return;
  const text = `x-sunset ${code(from)} → ${code(to)}`;
  if (to !== undefined && !sunsetDay(to)) return out.emit("sunset-invalid", where, text);
  // A sunset outside deprecation (or replacing one that was no date) is an extension change (document.ts).
  if (before.deprecated !== true || after.deprecated !== true) return;
  if (to === undefined) return out.emit("sunset-removed", where, text);
  const day = sunsetDay(from);
  if (day) out.emit(sunsetDay(to)! < day ? "sunset-earlier" : "sunset-later", where, text);
}

const OPERATION_REMOVAL: Record<Exclude<Removal, "plain">, string> = {
  after: "operation-removed-after-deprecation",
  before: "operation-removed-before-sunset",
  invalid: "sunset-invalid",
};
const PARAMETER_REMOVAL: Record<Exclude<Removal, "plain">, string> = {
  after: "parameter-removed-after-deprecation",
  before: "parameter-removed-before-sunset",
  invalid: "sunset-invalid",
};

family.detector("lifecycle", ["item", "operation", "parameter"], (pair, out) => {
  if (pair.on === "parameter") {
    const { before, after, place } = pair;
    if (before && !after) {
      const verdict = removal(pair.today, before.parameter);
      if (verdict.kind !== "plain")
        out.emit(PARAMETER_REMOVAL[verdict.kind], place, `\`${before.label}\` removed: ${verdict.note}`);
    }
    if (!before || !after) return;
    if (before.parameter.deprecated !== true && after.parameter.deprecated === true)
      out.emit("parameter-deprecated", place, `\`${after.label}\` deprecated`);
    return sunsetChange(out, place, before.parameter, after.parameter);
  }
  for (const [where, op] of removedOperations(pair)) {
    if (unstableNote(op)) continue;
    const verdict = removal(pair.today, op);
    const noun =
      pair.what === "webhook" ? "webhook removed" : pair.on === "item" ? "path removed" : "operation removed";
    // A webhook's removal is judged in webhooks.ts; only a sunset that is no date is reported here.
    if (verdict.kind === "plain" || (pair.what === "webhook" && verdict.kind !== "invalid")) continue;
    out.emit(OPERATION_REMOVAL[verdict.kind], where, `${noun}: ${verdict.note}`);
  }
  if (pair.on !== "operation" || !pair.before || !pair.after) return;
  const { before, after, where } = pair;
  if (before.deprecated !== true && after.deprecated === true)
    out.emit("operation-deprecated", where, "operation deprecated");
  if (before.deprecated === true && after.deprecated !== true)
    out.emit("operation-reactivated", where, "operation no longer deprecated");
  sunsetChange(out, where, before, after);
});

function stabilityChange(out: Out, where: string, before: unknown, after: unknown): void {
  const invalid = [before, after].find((level) => level !== undefined && !STABILITY.includes(String(level)));
  if (invalid !== undefined)
    return out.emit(
      "stability-invalid",
      where,
      `x-stability-level ${code(invalid as string)} is not one of ${STABILITY.join(", ")}`,
    );
  if (before === undefined || after === undefined || before === after) return;
  const down = STABILITY.indexOf(String(after)) < STABILITY.indexOf(String(before));
  out.emit(
    down ? "stability-decreased" : "stability-increased",
    where,
    `x-stability-level ${code(before as string)} → ${code(after as string)}`,
  );
}

family.detector("stability", ["item", "operation", "schema"], (pair, out) => {
  if (pair.on === "schema") {
    const before = pair.a.keywords.get("x-stability-level");
    const after = pair.b.keywords.get("x-stability-level");
    if (before && after && stable(before.value) !== stable(after.value))
      stabilityChange(out, locationOf(after.at), before.value, after.value);
    return;
  }
  for (const [where, op] of removedOperations(pair)) {
    const note = unstableNote(op);
    const noun =
      pair.what === "webhook" ? "webhook removed" : pair.on === "item" ? "path removed" : "operation removed";
    if (note) out.emit("operation-removed-unstable", where, `${noun} (${note})`);
  }
  if (pair.on === "operation" && pair.before && pair.after)
    stabilityChange(out, pair.where, pair.before["x-stability-level"], pair.after["x-stability-level"]);
});

// scope | kind | detector | level (request, response) | title | oasdiff's check and level (request, response)
family.table(`
  doc  | operation-removed-after-deprecation | lifecycle | info         | Deprecated operation removed (no sunset, or after its sunset) | api-removed-with-deprecation info
  doc  | operation-removed-before-sunset     | lifecycle | error        | Deprecated operation removed before its x-sunset date | api-removed-before-sunset error
  doc  | operation-deprecated                | lifecycle | info         | Operation deprecated | endpoint-deprecated info
  doc  | operation-reactivated               | lifecycle | info         | Operation no longer deprecated | endpoint-reactivated info
  doc  | sunset-removed                      | lifecycle | error        | x-sunset removed from a deprecated operation or parameter | api-sunset-deleted error
  doc  | sunset-earlier                      | lifecycle | error        | x-sunset of a deprecated operation or parameter moved earlier | api-sunset-date-changed-too-small error
  doc  | sunset-later                        | lifecycle | info         | x-sunset moved later | -
  doc  | sunset-invalid                      | lifecycle | error        | x-sunset is not a date (YYYY-MM-DD) | api-deprecated-sunset-parse error
  flow | parameter-removed-after-deprecation | lifecycle | info, info   | Deprecated parameter removed (no sunset, or after its sunset) | request-parameter-removed-with-deprecation info, -
  flow | parameter-removed-before-sunset     | lifecycle | error, error | Deprecated parameter removed before its x-sunset date | request-parameter-removed-before-sunset error, -
  flow | parameter-deprecated                | lifecycle | info, info   | Parameter deprecated | request-parameter-deprecated info, - | documentation
  doc  | operation-removed-unstable          | stability | info         | Operation with x-stability-level draft or alpha removed | -
  doc  | stability-decreased                 | stability | error        | x-stability-level decreased (stable → beta → alpha → draft) | api-stability-decreased error
  doc  | stability-increased                 | stability | info         | x-stability-level increased | api-stability-increased info
  doc  | stability-invalid                   | stability | error        | x-stability-level is not one of draft, alpha, beta, stable | api-invalid-stability-level error
`);
