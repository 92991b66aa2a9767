/**
 * verify's coverage phase, after Schemathesis's: each operation's query and header parameters and its JSON body
 * at the boundaries of their schemas (boundaries.ts), sent on the objects the run has seen. A value the schema
 * accepts is a positive case (`positive_data_acceptance`: it must be accepted); one it refuses is a negative
 * case (`negative_data_rejection`: refused with a 4xx, not a 404 for an object the run knows). Seeded: the same
 * seed sends the same requests; at most `perOperation` requests an operation, every scenario before a second
 * value of any.
 */
import type { Operation } from "../contract/router.ts";
import { type Boundary, pickBoundaries, schemaBoundaries } from "./boundaries.ts";
import {
  bodyValues,
  type CaseContext,
  chooseValues,
  copyParts,
  isWrite,
  knownObjects,
  linkedValue,
  local,
  parameterSchema,
  positiveParts,
  type RequestParts,
  seedFor,
  toProbe,
} from "./cases.ts";
import type { FoundValues, ValueSource } from "./links.ts";
import type { Exchange, Probe } from "./types.ts";

/** The phases `--phases` accepts: `examples` (everything but coverage) and `coverage`. */
export const PHASES = [
  {
    id: "examples",
    summary:
      "the contract's examples and seeded generated values along its links, read-backs, one broken part at a time, missing headers and credentials, other methods, isolation, webhooks",
  },
  {
    id: "coverage",
    summary:
      "boundary values from the schemas: lengths at and past minLength/maxLength, numbers at and past their bounds, each enum value and one outside, formats and patterns, required fields missing, wrong types",
  },
] as const;
export type PhaseId = (typeof PHASES)[number]["id"];
export const PHASE_IDS: readonly PhaseId[] = PHASES.map((phase) => phase.id);

/** Requests the coverage phase sends an operation at most (writes: at most a quarter of them positive). */
export const DEFAULT_COVERAGE_PER_OPERATION = 24;

/** What the coverage phase needs of verify's run. */
export interface CoverageRun {
  readonly context: CaseContext;
  readonly main: FoundValues;
  readonly mainCompanies: readonly string[];
  readonly sources: readonly ValueSource[];
  readonly writes: boolean;
  readonly enabled: ReadonlySet<string>;
  readonly signal: AbortSignal;
  skip(what: string, reason: string): void;
  progress(message: string): void;
  exchange(probe: Probe): Promise<Exchange | undefined>;
  sendParts(
    operation: Operation,
    parts: RequestParts,
    kind: Probe["kind"],
    account: Probe["account"],
  ): Promise<Exchange | undefined>;
}

export interface CoverageCase {
  parts: RequestParts;
  boundary: Boundary;
}

/** A parameter value as it goes into a query string or header; undefined for what a simple parameter cannot carry. */
function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * The coverage requests of an operation, built on `valid` (its first positive request, on objects the run has
 * seen): each boundary of each query parameter, of each header no answer feeds, and of the JSON body, with the
 * body's fields that carry chased values (ids, BINs) kept in its positive cases. Every case is checked against
 * the contract, so a positive one is valid and a negative one is not. At most `limit`, spread over the scenarios.
 */
export function coverageCases(
  context: CaseContext,
  operation: Operation,
  valid: RequestParts,
  limit: number,
  want: { positive: boolean; negative: boolean } = { positive: true, negative: true },
): CoverageCase[] {
  const cases: CoverageCase[] = [];
  const copy = (label: string) => copyParts(valid, label);
  for (const parameter of operation.parameters) {
    if (parameter.in !== "query" && parameter.in !== "header") continue;
    // A header an answer feeds (X-Company-Id) names an object: its negative cases are the negative phase's.
    if (parameter.in === "header" && linkedValue(parameter) !== undefined && parameter.required) continue;
    const boundaries = schemaBoundaries(context.document, parameterSchema(context, parameter), {
      seed: seedFor(context, operation, `coverage:${parameter.in}:${parameter.name}`),
    });
    for (const boundary of boundaries) {
      const text = asText(boundary.value);
      if (text === undefined) continue;
      if (parameter.in === "header" && !/^[\t\x20-\x7e]*$/.test(text)) continue;
      const parts = copy(`coverage: ${parameter.in} ${parameter.name}, ${boundary.description}`);
      if (parameter.in === "query") parts.query[parameter.name] = text;
      else parts.headers[parameter.name] = text;
      if (!boundary.positive) parts.broken = parameter.name;
      // As the text arrives: "12345" is a valid string, so a number meant to break a string parameter does not.
      const { issues } = context.router.validateParameters(operation, {
        path: parts.path,
        query: new URLSearchParams(parts.query),
        headers: lowerCased(parts.headers),
      });
      const broken = issues.some((issue) => issue.location[0] === parameter.in && issue.location[1] === parameter.name);
      if (broken === boundary.positive) continue;
      cases.push({ parts, boundary: { ...boundary, value: text } });
    }
  }
  const bodyPointer = operation.requestBody?.mediaTypes.get("application/json");
  if (bodyPointer) {
    const fixed = new Set(bodyValues(context.sources, operation).keys());
    const boundaries = schemaBoundaries(
      context.document,
      { $ref: local(bodyPointer) },
      {
        seed: seedFor(context, operation, "coverage:body"),
        ...(valid.body !== undefined ? { base: valid.body } : {}),
        fixed,
        isValid: (value) => context.router.validateBody(operation, "application/json", value).length === 0,
      },
    );
    for (const boundary of boundaries)
      cases.push({
        parts: { ...copy(`coverage: body ${boundary.description}`), body: boundary.value },
        boundary,
      });
  }
  const positives = want.positive ? cases.filter((item) => item.boundary.positive) : [];
  const negatives = want.negative ? cases.filter((item) => !item.boundary.positive) : [];
  // Writes make objects with each positive case: a quarter of the budget at most.
  const positiveLimit = Math.min(positives.length, isWrite(operation) ? Math.ceil(limit / 4) : Math.ceil(limit / 2));
  const chosen = pick(positives, positiveLimit);
  chosen.push(...pick(negatives, limit - chosen.length));
  return chosen;
}

function pick(cases: CoverageCase[], limit: number): CoverageCase[] {
  const byBoundary = new Map(cases.map((item) => [item.boundary, item]));
  return pickBoundaries(
    cases.map((item) => item.boundary),
    limit,
  ).map((boundary) => byBoundary.get(boundary)!);
}

/** Sends each operation's coverage requests (writes only with --allow-writes), on the objects the run has seen. */
export async function coveragePhase(
  run: CoverageRun,
  operations: readonly Operation[],
  perOperation = DEFAULT_COVERAGE_PER_OPERATION,
): Promise<void> {
  const want = {
    positive: run.enabled.has("positive_data_acceptance"),
    negative: run.enabled.has("negative_data_rejection"),
  };
  if (!want.positive && !want.negative) {
    run.skip("coverage phase", "it judges with positive_data_acceptance and negative_data_rejection: both are off");
    return;
  }
  run.progress(
    `• coverage: boundary values from the schemas (at most ${perOperation} requests an operation, seed ${run.context.seed})`,
  );
  for (const operation of operations) {
    if (run.signal.aborted) return;
    // A write in a read-only run: the positive phase already says it was not sent.
    if (isWrite(operation) && !run.writes) continue;
    const chosen = chooseValues(operation, run.main, run.mainCompanies, run.sources);
    if ("missing" in chosen) {
      run.skip(`${operation.operationId} (coverage)`, `not built on made-up ids: ${chosen.missing}`);
      continue;
    }
    const [valid] = positiveParts(run.context, operation, chosen.uses, 0);
    if (!valid) continue;
    for (const { parts, boundary } of coverageCases(run.context, operation, valid, perOperation, want)) {
      if (boundary.positive) {
        await run.sendParts(operation, parts, "positive", "main");
        continue;
      }
      const probe = toProbe(run.context, operation, parts, "negative", "main");
      const known = knownObjects(operation, parts);
      if (known.length > 0) probe.knownObjects = known;
      await run.exchange(probe);
    }
  }
}
