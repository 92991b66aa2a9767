/**
 * What a check is: a registry row binding its id, default level, direction and the detector that reports it
 * (oasdiff's `checker/rules.go` row). Detectors live in one small file per family (this folder); each one judges
 * the pairs the walk (walk.ts, schema-walk.ts) hands it and reports changes by kind. A family file declares its
 * detectors and its rows; registry.ts collects them.
 *
 * Levels follow oasdiff's three: `error` (breaks clients that followed the old contract), `warning` (may break
 * some clients; the definition cannot tell), `info` (compatible, or documentation only).
 *
 * Most checks depend on the direction the data flows, because the same edit helps one side and hurts the other:
 * - `toService`: the partner writes, the service reads (operation requests; the partner's answer to a webhook).
 *   Its checks are named `request-…`.
 * - `toPartner`: the service writes, the partner reads (operation responses; webhook deliveries).
 *   Its checks are named `response-…`.
 * Narrowing what the reader accepts breaks writers; widening what the writer may send breaks readers.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PairKind, PairOf } from "../pairs.ts";

export type Level = "error" | "warning" | "info";
export type Flow = "toService" | "toPartner";
/** Which messages a check judges: requests, responses, webhooks as a whole, or the document. */
export type Direction = "request" | "response" | "webhook" | "document";

/** Most severe first. */
export const LEVELS: readonly Level[] = ["error", "warning", "info"];

export function atLeast(level: Level, threshold: Level): boolean {
  return LEVELS.indexOf(level) <= LEVELS.indexOf(threshold);
}

export const FAMILIES = [
  "paths and operations",
  "deprecation and sunset",
  "webhooks",
  "security",
  "parameters",
  "request body",
  "response body",
  "properties",
  "schema keywords",
  "enums",
  "document",
] as const;
export type Family = (typeof FAMILIES)[number];

/** What a detector reports through: the change's kind (the id without its direction) and where it is. */
export interface Out {
  readonly flow: Flow;
  /**
   * `oasdiff` names oasdiff's level for this one change when it differs from the row's (oasdiff splits the
   * case where this gate has one check, e.g. a required and an optional response header removed).
   */
  emit(kind: string, where: string, message: string, options?: { oasdiff?: Level }): void;
}

export interface Detector<K extends PairKind = PairKind> {
  name: string;
  family: Family;
  /** The detector's file, relative to the repository (`scripts/lib/diff/checks/enums.ts`). */
  file: string;
  on: readonly K[];
  run(pair: PairOf<K>, out: Out): void;
}

/** oasdiff's check and its level, as `checker/rules.go` lists it: "request-property-enum-value-removed error". */
type OasdiffRef = `${string} ${Level}`;

export interface Row {
  id: string;
  /** The id without its direction prefix: what a detector emits. */
  kind: string;
  title: string;
  direction: Direction;
  level: Level;
  detector: Detector;
  /** Documentation-only: a release with nothing else needs a patch bump only. */
  documentation: boolean;
  /** oasdiff's counterpart, when oasdiff has one. */
  oasdiff?: { id: string; level: Level };
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

function parseOasdiff(ref: OasdiffRef | undefined): Row["oasdiff"] {
  if (!ref) return undefined;
  const [id, level] = ref.split(" ") as [string, Level];
  return { id, level };
}

export interface FamilyBuilder {
  name: Family;
  file: string;
  rows: Row[];
  detector<K extends PairKind>(name: string, on: readonly K[], run: (pair: PairOf<K>, out: Out) => void): Detector<K>;
  /**
   * The family's rows, one a line, columns split by `|`:
   * `scope | kind | detector | level(s) | title | oasdiff | flags`.
   * - scope `doc` (one id, the kind, for the whole document), `webhook` (one id, the kind), `flow` (one id per
   *   direction: `request-<kind>` and `response-<kind>`, with two levels and two oasdiff references: request,
   *   response), or `request` / `response` for a check judged in one direction only;
   * - oasdiff: oasdiff's check id and level (`request-property-type-changed error`), `-` where oasdiff has none;
   * - flags: `documentation` for a documentation-only check (a patch release).
   */
  table(text: string): void;
}

const SCOPES = { doc: "document", webhook: "webhook" } as const;

/** Starts a family file: `const family = defineFamily("enums", import.meta.url)`. */
export function defineFamily(name: Family, moduleUrl: string): FamilyBuilder {
  const file = path.relative(REPO, fileURLToPath(moduleUrl)).split(path.sep).join("/");
  const rows: Row[] = [];
  const detectors = new Map<string, Detector>();
  const parseLine = (line: string) => {
    const [scope, kind, detectorName, levels, title, oasdiff = "-", flags = ""] = line.split("|").map((c) => c.trim());
    const detector = detectors.get(detectorName!);
    if (!detector) throw new Error(`${file}: row ${kind} names no detector of this family: ${detectorName}`);
    const level = (value: string | undefined): Level => {
      if (!LEVELS.includes(value as Level)) throw new Error(`${file}: row ${kind}: level ${value}`);
      return value as Level;
    };
    const reference = (value: string | undefined) =>
      parseOasdiff(value && value !== "-" ? (value as OasdiffRef) : undefined);
    const common = { kind: kind!, title: title!, detector, documentation: flags === "documentation" };
    if (scope === "flow") {
      const [request, response] = levels!.split(",").map((c) => c.trim());
      const [oasdiffRequest, oasdiffResponse] = oasdiff.split(",").map((c) => c.trim());
      rows.push({
        ...common,
        id: `request-${kind}`,
        direction: "request",
        level: level(request),
        oasdiff: reference(oasdiffRequest),
      });
      rows.push({
        ...common,
        id: `response-${kind}`,
        direction: "response",
        level: level(response),
        oasdiff: reference(oasdiffResponse),
      });
    } else if (scope === "request" || scope === "response")
      rows.push({
        ...common,
        id: `${scope}-${kind}`,
        direction: scope,
        level: level(levels),
        oasdiff: reference(oasdiff),
      });
    else if (scope === "doc" || scope === "webhook")
      rows.push({ ...common, id: kind!, direction: SCOPES[scope], level: level(levels), oasdiff: reference(oasdiff) });
    else throw new Error(`${file}: row ${kind}: scope ${scope}`);
  };
  return {
    name,
    file,
    rows,
    detector: (detectorName, on, run) => {
      const detector = { name: detectorName, family: name, file, on, run };
      detectors.set(detectorName, detector as unknown as Detector);
      return detector;
    },
    table: (text) => {
      for (const line of text.split("\n")) if (line.trim()) parseLine(line);
    },
  };
}
