/**
 * Deprecation, sunset and stability: what may be removed, when (`deprecated` and `x-sunset`), and what may change
 * freely (`x-stability-level` draft or alpha).
 */
import { code, type ItemPair, type PairOf, STABILITY, stable, sunsetDay, unstableNote } from "../pairs.ts";
import { type JsonObject, locationOf } from "../resolve.ts";
import { defineFamily, flow, type Out, one } from "./define.ts";

const family = defineFamily("deprecation and sunset", import.meta.url, {
  "operation-removed-after-deprecation": one(
    "document",
    "Deprecated operation removed (no sunset, or after its sunset)",
    "info",
    ["api-removed-with-deprecation", "api-path-removed-with-deprecation"],
  ),
  "operation-removed-before-sunset": one("document", "Deprecated operation removed before its x-sunset date", "error", [
    "api-removed-before-sunset",
    "api-path-removed-before-sunset",
  ]),
  "operation-deprecated": one("document", "Operation deprecated", "info", [
    "endpoint-deprecated",
    "endpoint-deprecated-with-sunset",
  ]),
  "operation-reactivated": one("document", "Operation no longer deprecated", "info", ["endpoint-reactivated"]),
  "sunset-removed": one("document", "x-sunset removed from a deprecated operation or parameter", "error", [
    "sunset-deleted",
    "request-parameter-sunset-deleted",
  ]),
  "sunset-earlier": one("document", "x-sunset of a deprecated operation or parameter moved earlier", "error", [
    "api-sunset-date-changed-too-small",
    "request-parameter-sunset-date-changed-too-small",
  ]),
  "sunset-later": one("document", "x-sunset moved later", "info"),
  "sunset-invalid": one("document", "x-sunset is not a date (YYYY-MM-DD)", "error", [
    "api-deprecated-sunset-parse",
    "api-path-sunset-parse",
    "request-parameter-sunset-parse",
  ]),
  "parameter-removed-after-deprecation": flow(
    "Deprecated parameter removed (no sunset, or after its sunset)",
    ["info", "info"],
    { request: ["request-parameter-removed-with-deprecation"] },
  ),
  "parameter-removed-before-sunset": flow("Deprecated parameter removed before its x-sunset date", ["error", "error"], {
    request: ["request-parameter-removed-before-sunset"],
  }),
  "parameter-deprecated": flow(
    "Parameter deprecated",
    ["info", "info"],
    { request: ["request-parameter-deprecated"] },
    { documentation: true },
  ),
  "parameter-reactivated": flow(
    "Parameter no longer deprecated",
    ["info", "info"],
    { request: ["request-parameter-reactivated"] },
    { documentation: true },
  ),
  "operation-removed-unstable": one("document", "Operation with x-stability-level draft or alpha removed", "info"),
  "stability-decreased": one("document", "x-stability-level decreased (stable → beta → alpha → draft)", "error", [
    "api-stability-decreased",
    "request-property-stability-decreased",
    "response-property-stability-decreased",
  ]),
  "stability-increased": one("document", "x-stability-level increased", "info", [
    "api-stability-increased",
    "request-property-stability-increased",
    "response-property-stability-increased",
  ]),
  "stability-invalid": one("document", "x-stability-level is not one of draft, alpha, beta, stable", "error", [
    "api-invalid-stability-level",
  ]),
});
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

function sunsetChange(out: Out<SunsetKind>, where: string, before: JsonObject, after: JsonObject): void {
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

const OPERATION_REMOVAL = {
  after: "operation-removed-after-deprecation",
  before: "operation-removed-before-sunset",
  invalid: "sunset-invalid",
} as const satisfies Record<Exclude<Removal, "plain">, string>;
const PARAMETER_REMOVAL = {
  after: "parameter-removed-after-deprecation",
  before: "parameter-removed-before-sunset",
  invalid: "sunset-invalid",
} as const satisfies Record<Exclude<Removal, "plain">, string>;

type SunsetKind = "sunset-invalid" | "sunset-removed" | "sunset-earlier" | "sunset-later";

const LIFECYCLE = [
  "operation-removed-after-deprecation",
  "operation-removed-before-sunset",
  "operation-deprecated",
  "operation-reactivated",
  "sunset-removed",
  "sunset-earlier",
  "sunset-later",
  "sunset-invalid",
  "parameter-removed-after-deprecation",
  "parameter-removed-before-sunset",
  "parameter-deprecated",
  "parameter-reactivated",
] as const;

family.detector("lifecycle", ["item", "operation", "parameter"], LIFECYCLE, (pair, out) => {
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
    if (before.parameter.deprecated === true && after.parameter.deprecated !== true)
      out.emit("parameter-reactivated", place, `\`${after.label}\` no longer deprecated`);
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

function stabilityChange(
  out: Out<"stability-invalid" | "stability-decreased" | "stability-increased">,
  where: string,
  before: unknown,
  after: unknown,
): void {
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

const STABILITY_KINDS = [
  "operation-removed-unstable",
  "stability-decreased",
  "stability-increased",
  "stability-invalid",
] as const;

family.detector("stability", ["item", "operation", "schema"], STABILITY_KINDS, (pair, out) => {
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
