/**
 * The registry of checks: one row per check id with its default level, direction, family and detector, collected
 * from the family files in checks/. This table is the single place that decides what fails the gate; a level
 * profile (`--profile oasdiff`) swaps the default levels for oasdiff's where both tools have the check.
 *
 * Adding a check: one row in its family file (`family.flow(…)` or `family.doc(…)`) and, unless an existing
 * detector reports it, one detector there. test/diff/registry.test.ts then asks for a fixture pair that fires it
 * and its compatible twin that does not.
 */
import { atLeast, type Detector, type Flow, LEVELS, type Level, type Row } from "./checks/define.ts";
import deprecation from "./checks/deprecation.ts";
import document from "./checks/document.ts";
import enums from "./checks/enums.ts";
import parameters from "./checks/parameters.ts";
import paths from "./checks/paths.ts";
import properties from "./checks/properties.ts";
import requestBody from "./checks/request-body.ts";
import responseBody from "./checks/response-body.ts";
import schemaKeywords from "./checks/schema-keywords.ts";
import security from "./checks/security.ts";
import webhooks from "./checks/webhooks.ts";
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
  schemaKeywords,
  enums,
  document,
];

/** Every check, family by family. */
export const ROWS: readonly Row[] = FAMILY_FILES.flatMap((family) => family.rows);

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

/** A check's level in a profile: oasdiff's where oasdiff has the check (`oasdiff` set on the change wins). */
export function levelIn(row: Row, profile: Profile, oasdiff?: Level): Level {
  if (profile === "oasdiff") return oasdiff ?? row.oasdiff?.level ?? row.level;
  return row.level;
}

export interface Check {
  id: string;
  level: Level;
  direction: Row["direction"];
  family: string;
  /** The detector's file and name: `scripts/lib/diff/checks/enums.ts#enumValues`. */
  detector: string;
  title: string;
  oasdiff?: { id: string; level: Level };
}

/** Every check with its level in `profile`, in registry order. */
export function listChecks(profile: Profile = "default"): Check[] {
  return ROWS.map((row) => ({
    id: row.id,
    level: levelIn(row, profile),
    direction: row.direction,
    family: row.detector.family,
    detector: `${row.detector.file}#${row.detector.name}`,
    title: row.title,
    ...(row.oasdiff ? { oasdiff: row.oasdiff } : {}),
  }));
}

/** Checks whose default level is stricter or looser than oasdiff's: the profile's differences. */
export function differencesFromOasdiff(): Row[] {
  return ROWS.filter((row) => row.oasdiff && row.oasdiff.level !== row.level);
}
