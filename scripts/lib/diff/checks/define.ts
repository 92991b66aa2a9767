/**
 * What a check is: a registry row binding its id, default level, direction, the detector that reports it and the
 * oasdiff rule ids it covers (oasdiff's `checker/rules.go` row). Detectors live in one small file per family (this
 * folder); each one judges the pairs the walk (walk.ts, schema-walk.ts) hands it and reports changes by kind. A
 * family file declares its rows (`defineFamily(name, url, { kind: flow(…) | one(…) })`) and its detectors, each
 * naming the kinds it reports; registry.ts collects them.
 *
 * Kinds and ids are literal types the compiler holds: a detector reporting a kind its family does not declare,
 * or one it did not list, is a `tsc` error, and so is a row naming an oasdiff id that oasdiff's table lacks.
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
import { OASDIFF_RULES, type OasdiffId } from "../oasdiff-rules.ts";
import type { PairKind, PairOf, SchemaContext } from "../pairs.ts";

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
  "links",
  "document",
] as const;
export type Family = (typeof FAMILIES)[number];

/** Options of one report. */
export interface EmitOptions {
  /**
   * The oasdiff rule this one change is (one of its row's `oasdiff` ids): where oasdiff splits a case this gate
   * judges as one check (a maximum set rather than lowered, an optional rather than a required header removed),
   * `--profile oasdiff` takes this rule's level. `null`: oasdiff has no rule for this case (a minLength newly set,
   * a maximum removed), so the profile keeps this gate's level.
   */
  oasdiff?: OasdiffId | null;
}

/** What a detector reports through: the change's kind (the id without its direction) and where it is. */
export interface Out<K extends string = string> {
  readonly flow: Flow;
  emit(kind: K, where: string, message: string, options?: EmitOptions): void;
}

export interface Detector<P extends PairKind = PairKind, K extends string = string> {
  name: string;
  family: Family;
  /** The detector's file, relative to the repository (`scripts/lib/diff/checks/enums.ts`). */
  file: string;
  on: readonly P[];
  /** The kinds it reports: each row of its family is reported by exactly one detector. */
  kinds: readonly K[];
  run(pair: PairOf<P>, out: Out<K>): void;
}

/** A row as a family file writes it. */
export interface RowSpec {
  /**
   * `flow`: one check per direction (`request-<kind>`, `response-<kind>`); `request` or `response`: a check judged
   * in one direction only; `document` and `webhook`: one check, the kind itself.
   */
  scope: "flow" | "request" | "response" | "document" | "webhook";
  title: string;
  /** The default level; a flow row's is `[request, response]`. */
  level: Level | readonly [Level, Level];
  /** oasdiff's rules this check covers; a flow row's are `{ request, response }`. */
  oasdiff: readonly OasdiffId[] | { readonly request: readonly OasdiffId[]; readonly response: readonly OasdiffId[] };
  /** Documentation-only: a release with nothing else needs a patch bump only. */
  documentation: boolean;
  /** Why the default level is stricter than oasdiff's for some rule the check covers; a flow row's per direction. */
  why?: string | { readonly request?: string; readonly response?: string };
}

/** Where in a message oasdiff names a schema rule: `request-body-…`, `request-property-…`, `response-header-…`. */
export const RULE_PLACES = ["body", "property", "parameter", "header"] as const;
export type RulePlace = (typeof RULE_PLACES)[number];

/** What follows `<direction>-<place>-` in oasdiff's rule ids: `max-length-set`, `type-changed`, … */
export type RuleSuffix<D extends "request" | "response"> = OasdiffId extends infer I
  ? I extends `${D}-${RulePlace}-${infer S}`
    ? S
    : never
  : never;

/**
 * The oasdiff rules named `<direction>-<place>-<suffix>` for each suffix and place (every place, unless `places`
 * says which) that oasdiff's table has: `rulesFor("request", ["max-length-set"])` is the body's, a property's
 * and a parameter's rule. A suffix no rule has is a `tsc` error.
 */
export function rulesFor<D extends "request" | "response">(
  direction: D,
  suffixes: readonly RuleSuffix<D>[],
  places: readonly RulePlace[] = RULE_PLACES,
): OasdiffId[] {
  return suffixes.flatMap((suffix) =>
    places.map((place) => `${direction}-${place}-${suffix}`).filter((id): id is OasdiffId => isOasdiffId(id)),
  );
}

/**
 * oasdiff's rule for a change in the schema at `context`, `<direction>-<place>-<suffix>`: the place is `body` (a
 * body's own schema), `property` (anything inside it), `parameter` (a parameter's own schema; anything inside it:
 * `parameter-property-<suffix>`) or `header` (a response header's own schema). Null where oasdiff has no such rule.
 */
export function ruleAt(flow: Flow, context: SchemaContext, suffix: string): OasdiffId | null {
  const direction = flow === "toService" ? "request" : "response";
  const place =
    context.in === "body"
      ? context.top
        ? "body"
        : "property"
      : context.in === "parameter"
        ? context.top
          ? "parameter"
          : "parameter-property"
        : context.top
          ? "header"
          : undefined;
  if (!place) return null;
  const id = `${direction}-${place}-${suffix}`;
  return isOasdiffId(id) ? id : null;
}

/** The rules of the same suffixes in both directions: `{ request: rulesFor("request", …), response: … }`. */
export function rulesBothWays(suffixes: readonly (RuleSuffix<"request"> & RuleSuffix<"response">)[]) {
  return { request: rulesFor("request", suffixes), response: rulesFor("response", suffixes) };
}

/** Whether oasdiff's table has this rule id. */
export function isOasdiffId(id: string): id is OasdiffId {
  return Object.hasOwn(OASDIFF_RULES, id);
}

/** A check in both directions: its request and response levels, and the oasdiff rules each covers. */
export function flow(
  title: string,
  [request, response]: readonly [Level, Level],
  oasdiff: { request?: readonly OasdiffId[]; response?: readonly OasdiffId[] } = {},
  flags: { documentation?: boolean; why?: { request?: string; response?: string } } = {},
) {
  return {
    scope: "flow",
    title,
    level: [request, response],
    oasdiff: { request: oasdiff.request ?? [], response: oasdiff.response ?? [] },
    documentation: flags.documentation === true,
    ...(flags.why ? { why: flags.why } : {}),
  } as const satisfies RowSpec;
}

/** A check with one id: the document's, a webhook's, or a message's in one direction. */
export function one<const S extends "request" | "response" | "document" | "webhook">(
  scope: S,
  title: string,
  level: Level,
  oasdiff: readonly OasdiffId[] = [],
  flags: { documentation?: boolean; why?: string } = {},
) {
  return {
    scope,
    title,
    level,
    oasdiff,
    documentation: flags.documentation === true,
    ...(flags.why ? { why: flags.why } : {}),
  } as const satisfies RowSpec;
}

/** The check ids a family's rows declare: `request-<kind>` and `response-<kind>` for a flow row, … */
export type IdsOf<S extends Record<string, RowSpec>> = {
  [K in keyof S & string]: S[K]["scope"] extends "flow"
    ? `request-${K}` | `response-${K}`
    : S[K]["scope"] extends "request" | "response"
      ? `${S[K]["scope"]}-${K}`
      : K;
}[keyof S & string];

export interface Row {
  id: string;
  /** The id without its direction prefix: what a detector emits. */
  kind: string;
  title: string;
  direction: Direction;
  level: Level;
  detector: Detector;
  documentation: boolean;
  /** oasdiff's rules this check covers (none where oasdiff has no such check). */
  oasdiff: readonly OasdiffId[];
  /** Why the default level is stricter than oasdiff's level of some rule the check covers. */
  why?: string;
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

export interface FamilyBuilder<S extends Record<string, RowSpec>> {
  name: Family;
  file: string;
  /** The kinds this family declares. */
  kinds: readonly (keyof S & string)[];
  /** Declares a detector: the pairs it judges and the kinds (of this family) it reports. */
  detector<P extends PairKind, const K extends keyof S & string>(
    name: string,
    on: readonly P[],
    kinds: readonly K[],
    run: (pair: PairOf<P>, out: Out<K>) => void,
  ): Detector<P, K>;
  /** The family's rows, each bound to the detector that reports its kind; throws when one has none or two. */
  rows(): Row[];
  /** Phantom: the ids this family declares. */
  readonly ids?: IdsOf<S>;
}

/** Starts a family file: `const family = defineFamily("enums", import.meta.url, { "enum-value-added": flow(…) })`. */
export function defineFamily<const S extends Record<string, RowSpec>>(
  name: Family,
  moduleUrl: string,
  spec: S,
): FamilyBuilder<S> {
  const file = path.relative(REPO, fileURLToPath(moduleUrl)).split(path.sep).join("/");
  const detectors: Detector[] = [];
  const kinds = Object.keys(spec) as (keyof S & string)[];
  return {
    name,
    file,
    kinds,
    detector: (detectorName, on, reported, run) => {
      const detector = { name: detectorName, family: name, file, on, kinds: reported, run };
      detectors.push(detector as unknown as Detector);
      return detector;
    },
    rows: () =>
      kinds.flatMap((kind): Row[] => {
        const row = spec[kind]!;
        const owners = detectors.filter((detector) => detector.kinds.includes(kind));
        if (owners.length !== 1)
          throw new Error(
            `${file}: kind ${kind} is reported by ${owners.length === 0 ? "no detector" : owners.map((d) => d.name).join(" and ")}`,
          );
        const common = { kind, title: row.title, detector: owners[0]!, documentation: row.documentation };
        const why = (text: string | undefined) => (text ? { why: text } : {});
        if (row.scope === "flow") {
          const [request, response] = row.level as readonly [Level, Level];
          const oasdiff = row.oasdiff as { request: readonly OasdiffId[]; response: readonly OasdiffId[] };
          const reasons = (row.why ?? {}) as { request?: string; response?: string };
          return [
            {
              ...common,
              id: `request-${kind}`,
              direction: "request",
              level: request,
              oasdiff: oasdiff.request,
              ...why(reasons.request),
            },
            {
              ...common,
              id: `response-${kind}`,
              direction: "response",
              level: response,
              oasdiff: oasdiff.response,
              ...why(reasons.response),
            },
          ];
        }
        const level = row.level as Level;
        const oasdiff = row.oasdiff as readonly OasdiffId[];
        if (row.scope === "request" || row.scope === "response")
          return [
            { ...common, id: `${row.scope}-${kind}`, direction: row.scope, level, oasdiff, ...why(row.why as string) },
          ];
        return [{ ...common, id: kind, direction: row.scope, level, oasdiff, ...why(row.why as string) }];
      }),
  };
}
