/**
 * How the schema walk re-reads a detector's kinds in two places: inside `not` (the inverse kind) and in a response
 * header's values (reported as `response-header-values-changed`).
 */
import type { Kind } from "./registry.ts";

/**
 * What a change inside `not` becomes: what `not` excludes grows when its schema widens, so a widening there
 * narrows the schema around it. The walk reports such changes under the inverse kind, in the same direction.
 */
export const INVERSE_KINDS = new Map<Kind, Kind>();
for (const [x, y] of [
  ["type-narrowed", "type-widened"],
  ["nullable-added", "nullable-removed"],
  ["format-added", "format-removed"],
  ["const-added", "const-removed"],
  ["constraint-narrowed", "constraint-widened"],
  ["pattern-added", "pattern-removed"],
  ["items-narrowed", "items-widened"],
  ["properties-narrowed", "properties-widened"],
  ["variant-removed", "variant-added"],
  ["allof-member-added", "allof-member-removed"],
  ["conditional-added", "conditional-removed"],
  ["enum-value-removed", "enum-value-added"],
  ["enum-added", "enum-removed"],
  ["extensible-enum-value-removed", "extensible-enum-value-added"],
] as const satisfies readonly (readonly [Kind, Kind])[]) {
  INVERSE_KINDS.set(x, y);
  INVERSE_KINDS.set(y, x);
}

/**
 * What a response header's schema may change without failing the gate: its range of values. oasdiff checks a
 * response header's presence, requiredness, type, format and nullability only; a wider range of values is
 * reported, as information. The walk reports these kinds found in a response header's schema through the
 * parameters' `headerValues` detector, as `response-header-values-changed`.
 */
export const HEADER_VALUE_KINDS = new Set<Kind>([
  "constraint-widened",
  "constraint-changed",
  "enum-value-added",
  "enum-removed",
  "extensible-enum-value-added",
  "pattern-removed",
  "pattern-changed",
  "items-widened",
  "properties-widened",
  "prefix-items-changed",
  "variant-added",
  "allof-member-removed",
  "const-changed",
  "const-removed",
  "conditional-changed",
  "conditional-removed",
]);
