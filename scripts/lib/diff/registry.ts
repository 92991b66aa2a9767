/**
 * The registry of checks: one row per check id with its default level, direction, family, detector and the oasdiff
 * rules it covers, collected from the family files in checks/. This table is the single place that decides what
 * fails the gate; a level profile (`--profile oasdiff`) takes, for each change, the level oasdiff's own table
 * (oasdiff-rules.ts, read from its checker/rules.go) gives the rule the change is.
 *
 * Adding a check: one row in its family file's `defineFamily(…)` spec (`flow(…)` or `one(…)`), and its kind in
 * the list of the detector that reports it (a new detector there if none fits). test/diff/registry.test.ts then
 * asks for a fixture pair that fires it and its compatible twin that does not.
 */
import { atLeast, type Detector, type Flow, LEVELS, type Level, type Row } from "./checks/define.ts";
import deprecation from "./checks/deprecation.ts";
import document from "./checks/document.ts";
import enums from "./checks/enums.ts";
import links from "./checks/links.ts";
import parameters from "./checks/parameters.ts";
import paths from "./checks/paths.ts";
import properties from "./checks/properties.ts";
import requestBody from "./checks/request-body.ts";
import responseBody from "./checks/response-body.ts";
import annotations from "./checks/schema-keywords/annotations.ts";
import arrays from "./checks/schema-keywords/arrays.ts";
import composition from "./checks/schema-keywords/composition.ts";
import constraints from "./checks/schema-keywords/constraints.ts";
import objectShape from "./checks/schema-keywords/object-shape.ts";
import patterns from "./checks/schema-keywords/patterns.ts";
import types from "./checks/schema-keywords/types.ts";
import values from "./checks/schema-keywords/values.ts";
import security from "./checks/security.ts";
import webhooks from "./checks/webhooks.ts";
import { OASDIFF_RULES, type OasdiffId } from "./oasdiff-rules.ts";
import type { PairKind } from "./pairs.ts";

export { atLeast, type Flow, LEVELS, type Level, type Row };

const FAMILY_FILES = [
  paths,
  deprecation,
  webhooks,
  security,
  parameters,
  requestBody,
  responseBody,
  properties,
  // schema keywords, one file per keyword family
  types,
  values,
  constraints,
  patterns,
  arrays,
  objectShape,
  annotations,
  composition,
  enums,
  links,
  document,
] as const;

/** Every kind a detector may report (a check id without its direction). */
export type Kind = (typeof FAMILY_FILES)[number]["kinds"][number];
/** Every check id: a typo in one is a `tsc` error. */
export type CheckId = NonNullable<(typeof FAMILY_FILES)[number]["ids"]>;

/** Every check, family by family. */
export const ROWS: readonly Row[] = FAMILY_FILES.flatMap((family) => family.rows());

const BY_ID = new Map<string, Row>();
for (const row of ROWS) {
  if (BY_ID.has(row.id)) throw new Error(`check ${row.id} is registered twice`);
  BY_ID.set(row.id, row);
}

/** The detectors, each once, in registry order. */
export const DETECTORS: readonly Detector[] = [...new Set(ROWS.map((row) => row.detector))];

const BY_PAIR = new Map<PairKind, Detector[]>();
for (const detector of DETECTORS)
  for (const kind of detector.on) BY_PAIR.set(kind, [...(BY_PAIR.get(kind) ?? []), detector]);

/** The detectors that judge pairs of this kind. */
export function detectorsFor(kind: PairKind): readonly Detector[] {
  return BY_PAIR.get(kind) ?? [];
}

export function findCheck(id: string): Row | undefined {
  return BY_ID.get(id);
}

/** The row a detector's report names: the kind alone for document and webhook checks, else by direction. */
export function rowFor(kind: string, flow: Flow): Row | undefined {
  const own = BY_ID.get(kind);
  if (own && (own.direction === "document" || own.direction === "webhook")) return own;
  return BY_ID.get(`${flow === "toService" ? "request" : "response"}-${kind}`);
}

export const PROFILES = ["default", "oasdiff"] as const;
export type Profile = (typeof PROFILES)[number];

/** oasdiff's level of one of its rules, as its table says. */
export function oasdiffLevel(id: OasdiffId): Level {
  return OASDIFF_RULES[id].level;
}

/**
 * The one level oasdiff gives every rule a check covers, or undefined when the check covers none (oasdiff has no
 * such check) or rules of different levels (then each change names its rule).
 */
export function sharedOasdiffLevel(row: Row): Level | undefined {
  const levels = new Set(row.oasdiff.map(oasdiffLevel));
  return levels.size === 1 ? [...levels][0] : undefined;
}

/**
 * A change's level in a profile. `default`: the check's. `oasdiff`: the level oasdiff's table gives the rule the
 * change is (`rule`, else the one level of every rule the check covers); this gate's level where oasdiff has no
 * such check, or no rule for the case (`rule` null).
 */
export function levelIn(row: Row, profile: Profile, rule?: OasdiffId | null): Level {
  if (profile === "default") return row.level;
  if (rule) return oasdiffLevel(rule);
  if (rule === null) return row.level;
  if (row.oasdiff.length === 0) return row.level;
  const shared = sharedOasdiffLevel(row);
  if (!shared) throw new Error(`${row.id} covers oasdiff rules of different levels: the change must name its rule`);
  return shared;
}

export interface Check {
  id: string;
  level: Level;
  direction: Row["direction"];
  family: string;
  /** The detector's file and name: `scripts/lib/diff/checks/enums.ts#enumValues`. */
  detector: string;
  title: string;
  /** The oasdiff rules it covers, each with oasdiff's level. */
  oasdiff: { id: OasdiffId; level: Level }[];
}

/** Every check with its level in `profile` (under `oasdiff`, the most severe of its rules'), in registry order. */
export function listChecks(profile: Profile = "default"): Check[] {
  return ROWS.map((row) => {
    const oasdiff = row.oasdiff.map((id) => ({ id, level: oasdiffLevel(id) }));
    const strictest = LEVELS.find((level) => oasdiff.some((rule) => rule.level === level));
    return {
      id: row.id,
      level: profile === "oasdiff" && strictest ? strictest : row.level,
      direction: row.direction,
      family: row.detector.family,
      detector: `${row.detector.file}#${row.detector.name}`,
      title: row.title,
      oasdiff,
    };
  });
}

/** A check's oasdiff rules whose level differs from its default level: the profile's differences. */
export function differencesFromOasdiff(): { row: Row; rules: { id: OasdiffId; level: Level }[] }[] {
  return ROWS.flatMap((row) => {
    const rules = row.oasdiff.map((id) => ({ id, level: oasdiffLevel(id) })).filter((rule) => rule.level !== row.level);
    return rules.length > 0 ? [{ row, rules }] : [];
  });
}
