/**
 * The requests verify sends for an operation, built from the contract: positive ones (each named example of
 * the body, and values generated from the schemas, seeded, with ids chased from earlier answers) and negative
 * ones (exactly one part broken: a parameter, the body, the JSON itself, the content type).
 */
import fc from "fast-check";
import { lookup } from "../contract/refs.ts";
import type { ContractRouter, Operation, Parameter } from "../contract/router.ts";
import { invalidValue, type Schema, validValue } from "./arbitraries.ts";
import { type Found, type FoundValues, howToSupply, type ValueSource, valueName } from "./links.ts";
import type { Account, Probe, ProbeKind } from "./types.ts";

/** The parts of one request, before it is written out. */
export interface RequestParts {
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** A JSON body, serialised when the probe is built. */
  body?: unknown;
  /** A body sent as it is (malformed JSON). */
  rawBody?: string;
  /** Content-Type of the body; application/json unless told. */
  contentType?: string;
  /** Found values the request uses, by value name (for messages and isolation). */
  uses: Map<string, Found>;
  /** A label: "example travelCard", "generated 2". */
  label: string;
  /** Statuses it may also get, and why (a weak id). */
  alsoAccepted?: { statuses: number[]; reason: string };
  /** The parameter a negative request breaks or leaves out (none: the body). */
  broken?: string;
}

/**
 * The objects a request names in its path and headers that the run has seen (strong values only), but not the
 * parameter it breaks: "card 01J…". Empty when it names none, or names one the run has not seen.
 */
export function knownObjects(operation: Operation, parts: RequestParts): string[] {
  const known: string[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.name === parts.broken || (parameter.in !== "path" && parameter.in !== "header")) continue;
    const value = parameter.in === "path" ? parts.path[parameter.name] : parts.headers[parameter.name];
    const name = linkedValue(parameter);
    if (value === undefined || name === undefined) continue;
    const found = parts.uses.get(name);
    if (!found || found.value !== value || !found.strong) return [];
    known.push(`${name.replace(/Id$/, "")} ${value}`);
  }
  return known;
}

export interface CaseContext {
  baseUrl: string;
  document: Record<string, unknown>;
  router: ContractRouter;
  seed: number;
  keys: { main: string; other?: string };
  /** Where each value comes from: the contract's links and its workflows' body fields (links.ts). */
  sources: readonly ValueSource[];
}

/** The body fields of an operation that name an object (a workflow fills them from an answer): field → value name. */
export function bodyValues(sources: readonly ValueSource[], operation: Operation): Map<string, string> {
  const fields = new Map<string, string>();
  for (const source of sources)
    if (source.to === operation.operationId && source.into.in === "body") fields.set(source.into.name, source.value);
  return fields;
}

/** The value a path or header parameter takes (its valueName), or undefined for one no value feeds. */
export function linkedValue(parameter: Parameter): string | undefined {
  return parameter.in === "path" || parameter.in === "header" ? valueName(parameter) : undefined;
}

/** The local pointer (`#/components/…`) of a router pointer (`https://…/partner.json#/components/…`). */
export function local(pointer: string): string {
  return pointer.slice(pointer.indexOf("#"));
}

function nodeAt(context: CaseContext, pointer: string): Record<string, unknown> {
  return lookup(context.document, local(pointer)) as Record<string, unknown>;
}

/** A stable number for a text, to give each operation its own seed. */
function hashOf(text: string): number {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  return hash >>> 0;
}

export function seedFor(context: CaseContext, operation: Operation, purpose: string): number {
  return (context.seed + hashOf(`${operation.operationId}:${purpose}`)) % 2 ** 31;
}

/** `count` values drawn from an arbitrary, the same ones for the same seed. */
function draw<T>(arbitrary: fc.Arbitrary<T>, seed: number, count: number): T[] {
  return fc.sample(arbitrary, { seed, numRuns: count });
}

/** The parameter's own `example`, when the contract gives one. */
function parameterExample(context: CaseContext, parameter: Parameter): unknown {
  const holder = nodeAt(context, parameter.pointer.replace(/\/schema$/, ""));
  return holder.example;
}

export function parameterSchema(context: CaseContext, parameter: Parameter): Schema {
  return nodeAt(context, parameter.pointer) as Schema;
}

/** The named examples of the request body. */
function bodyExamples(context: CaseContext, operation: Operation): [string, unknown][] {
  const pointer = operation.requestBody?.mediaTypes.get("application/json");
  if (!pointer) return [];
  const media = nodeAt(context, pointer.replace(/\/schema$/, ""));
  const examples = (media.examples ?? {}) as Record<string, unknown>;
  return Object.entries(examples).flatMap(([name, example]) => {
    const resolved = (example as { $ref?: string }).$ref
      ? lookup(context.document, (example as { $ref: string }).$ref)
      : example;
    return resolved !== null && typeof resolved === "object" && "value" in resolved
      ? [[name, (resolved as { value: unknown }).value] as [string, unknown]]
      : [];
  });
}

export function isWrite(operation: Operation): boolean {
  return operation.method !== "GET" && operation.method !== "HEAD";
}

export function isCompanyScoped(operation: Operation): boolean {
  return operation.parameters.some((parameter) => parameter.in === "header" && parameter.name === "X-Company-Id");
}

/** The values an operation needs: required linked parameters and linked body fields. */
export function neededValues(operation: Operation, sources: readonly ValueSource[]): string[] {
  const needed = new Set<string>();
  for (const parameter of operation.parameters) {
    const value = linkedValue(parameter);
    if (value && parameter.required) needed.add(value);
  }
  for (const value of bodyValues(sources, operation).values()) needed.add(value);
  return [...needed];
}

/**
 * The found values an operation's positive requests use: the first company (in `companies`' order) for which
 * every value it needs is known. Otherwise the reason, naming the missing value and how to supply it.
 */
export function chooseValues(
  operation: Operation,
  values: FoundValues,
  companies: readonly string[],
  sources: readonly ValueSource[],
): { uses: Map<string, Found> } | { missing: string } {
  const needed = neededValues(operation, sources).filter((name) => name !== "companyId");
  const scoped = isCompanyScoped(operation);
  const candidates = scoped ? companies : [undefined];
  if (scoped && companies.length === 0)
    return { missing: `no company to act for (${howToSupply("companyId", sources, operation.operationId)})` };
  let firstMissing: string | undefined;
  for (const companyId of candidates) {
    const uses = new Map<string, Found>();
    if (companyId !== undefined) uses.set("companyId", { name: "companyId", value: companyId, from: "", strong: true });
    let complete = true;
    for (const name of needed) {
      const found = values.get(name, companyId);
      // A strong value first: one the contract vouches for.
      const pick = found.find((item) => item.strong) ?? found[0];
      if (!pick) {
        complete = false;
        firstMissing ??= name;
        break;
      }
      uses.set(name, pick);
    }
    if (complete) return { uses };
  }
  const name = firstMissing ?? "companyId";
  return {
    missing: `no ${name}${scoped ? " for any company" : ""}: ${howToSupply(name, sources, operation.operationId)}`,
  };
}

/** Values that stand in for ids nothing yielded, for requests that must be refused anyway: the contract's examples. */
function placeholder(context: CaseContext, parameter: Parameter): string | undefined {
  const example = parameterExample(context, parameter);
  if (example !== undefined) return String(example);
  const schema = parameterSchema(context, parameter);
  const [drawn] = draw(validValue(context.document, schema, local(parameter.pointer)), 1, 1);
  return drawn === undefined ? undefined : String(drawn);
}

/** The body with the fields the workflows fill from answers (bodyValues) set to the values the run found. */
function fixBody(context: CaseContext, operation: Operation, body: unknown, uses: Map<string, Found>): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const fixed: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [field, value] of bodyValues(context.sources, operation)) {
    const found = uses.get(value);
    if (found) fixed[field] = found.value;
  }
  return fixed;
}

function baseParts(
  context: CaseContext,
  operation: Operation,
  uses: Map<string, Found>,
  label: string,
  usePlaceholders: boolean,
): RequestParts {
  const parts: RequestParts = { path: {}, query: {}, headers: {}, uses, label };
  for (const parameter of operation.parameters) {
    const linked = linkedValue(parameter);
    let value = linked ? uses.get(linked)?.value : undefined;
    if (value === undefined && parameter.required)
      value = usePlaceholders ? placeholder(context, parameter) : undefined;
    if (value === undefined) continue;
    if (parameter.in === "path") parts.path[parameter.name] = value;
    else if (parameter.in === "query") parts.query[parameter.name] = value;
    else if (parameter.in === "header") parts.headers[parameter.name] = value;
  }
  return parts;
}

function weakReason(uses: Map<string, Found>): RequestParts["alsoAccepted"] {
  const weak = [...uses.values()].find((found) => !found.strong);
  if (!weak) return undefined;
  return {
    statuses: [404],
    reason: `${weak.name} ${weak.value} came from ${weak.from}, and the contract does not say that this operation knows it`,
  };
}

/**
 * Positive requests: the body's named examples (or the parameters' examples when there is no body), then
 * `generated` requests whose optional parameters and body are drawn from the schemas; ids from `uses`.
 */
export function positiveParts(
  context: CaseContext,
  operation: Operation,
  uses: Map<string, Found>,
  generated: number,
): RequestParts[] {
  const out: RequestParts[] = [];
  const alsoAccepted = weakReason(uses);
  const withBase = (label: string) => {
    const parts = baseParts(context, operation, uses, label, true);
    if (alsoAccepted) parts.alsoAccepted = alsoAccepted;
    return parts;
  };
  const hasBody = operation.requestBody !== undefined;
  const optional = operation.parameters.filter((parameter) => !parameter.required && parameter.in === "query");
  if (hasBody) {
    for (const [name, value] of bodyExamples(context, operation))
      out.push({ ...withBase(`example ${name}`), body: fixBody(context, operation, value, uses) });
  } else {
    const parts = withBase("parameters from the contract's examples");
    for (const parameter of optional) {
      const example = parameterExample(context, parameter);
      if (example !== undefined) parts.query[parameter.name] = String(example);
    }
    out.push(parts);
  }
  if (generated > 0 && (hasBody || optional.length > 0)) {
    const bodyPointer = operation.requestBody?.mediaTypes.get("application/json");
    const bodies = bodyPointer
      ? draw(
          validValue(context.document, { $ref: local(bodyPointer) }, local(bodyPointer)).filter(
            (value) => context.router.validateBody(operation, "application/json", value).length === 0,
          ),
          seedFor(context, operation, "body"),
          generated,
        )
      : [];
    const queries = draw(
      fc.record(
        Object.fromEntries(
          optional.map((parameter) => [
            parameter.name,
            validValue(context.document, parameterSchema(context, parameter), local(parameter.pointer)).map(String),
          ]),
        ),
        { requiredKeys: [] },
      ),
      seedFor(context, operation, "query"),
      generated,
    );
    for (let index = 0; index < generated; index++) {
      const parts = withBase(`generated ${index + 1} (seeded)`);
      Object.assign(parts.query, queries[index] ?? {});
      if (bodyPointer) {
        if (bodies[index] === undefined) continue;
        parts.body = fixBody(context, operation, bodies[index], uses);
      }
      out.push(parts);
    }
  }
  return dedupe(out);
}

function dedupe(list: RequestParts[]): RequestParts[] {
  const seen = new Set<string>();
  return list.filter((parts) => {
    const key = JSON.stringify([parts.path, parts.query, parts.headers, parts.body, parts.rawBody]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Text a parameter's schema refuses (after coercion to its type), or undefined when it takes any text. */
export function invalidParameterText(schema: Schema): string | undefined {
  if (schema.type === "integer") return "1.5x";
  if (schema.type === "number") return "not-a-number";
  if (schema.type === "boolean") return "maybe";
  if (Array.isArray(schema.enum)) return "not-one-of-the-values";
  if (typeof schema.pattern === "string") {
    const pattern = new RegExp(schema.pattern);
    return ["not-valid", "0", "x", "-"].find((candidate) => !pattern.test(candidate));
  }
  if (typeof schema.minLength === "number" && schema.minLength > 1) return "x";
  return undefined;
}

/** A copy of a request's parts to change one thing in, under a new label. */
export function copyParts(valid: RequestParts, label: string): RequestParts {
  return { ...valid, path: { ...valid.path }, query: { ...valid.query }, headers: { ...valid.headers }, label };
}

/** Requests with exactly one part broken, from a valid request's parts. */
export function negativeParts(context: CaseContext, operation: Operation, valid: RequestParts): RequestParts[] {
  const out: RequestParts[] = [];
  const copy = (label: string) => copyParts(valid, label);
  for (const parameter of operation.parameters) {
    const schema = lookup(context.document, local(parameter.pointer)) as Schema;
    const resolved = schema.$ref ? (lookup(context.document, schema.$ref) as Schema) : schema;
    const text = invalidParameterText(resolved);
    if (text === undefined) continue;
    const parts = copy(`${parameter.in} ${parameter.name} is ${JSON.stringify(text)}`);
    parts.broken = parameter.name;
    if (parameter.in === "path") parts.path[parameter.name] = text;
    else if (parameter.in === "query") parts.query[parameter.name] = text;
    else if (parameter.in === "header") parts.headers[parameter.name] = text;
    else continue;
    out.push(parts);
  }
  const bodyPointer = operation.requestBody?.mediaTypes.get("application/json");
  if (bodyPointer) {
    const broken = invalidValue(context.document, { $ref: local(bodyPointer) }, local(bodyPointer));
    if (broken) {
      const seen = new Set<string>();
      for (const value of draw(broken, seedFor(context, operation, "invalid-body"), 12)) {
        const issues = context.router.validateBody(operation, "application/json", value);
        const key = JSON.stringify(value);
        if (issues.length === 0 || seen.has(key)) continue;
        seen.add(key);
        out.push({ ...copy(issues[0]!.message), body: value });
        if (seen.size >= 3) break;
      }
    }
    out.push({ ...copy("malformed JSON"), body: undefined, rawBody: '{"' });
    out.push({ ...copy("Content-Type text/plain"), contentType: "text/plain" });
    if (operation.requestBody?.required) out.push({ ...copy("no body"), body: undefined });
  }
  return out;
}

/** The request without its required headers other than X-API-Key, one each. */
export function missingHeaderParts(operation: Operation, valid: RequestParts): RequestParts[] {
  return operation.parameters
    .filter((parameter) => parameter.in === "header" && parameter.required)
    .map((parameter) => {
      const { [parameter.name]: _dropped, ...headers } = valid.headers;
      return { ...valid, headers, label: `without ${parameter.name}`, broken: parameter.name };
    });
}

/** Writes the parts out as a probe: the URL, the account's X-API-Key, the body and its Content-Type. */
export function toProbe(
  context: CaseContext,
  operation: Operation,
  parts: RequestParts,
  kind: ProbeKind,
  account: Account,
  method: string = operation.method,
): Probe {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(parts.path[name] ?? `{${name}}`),
  );
  const query = new URLSearchParams(parts.query).toString();
  const headers: Record<string, string> = {};
  const key = account === "main" ? context.keys.main : account === "other" ? context.keys.other : undefined;
  if (key !== undefined) headers["X-API-Key"] = key;
  Object.assign(headers, parts.headers);
  let body: string | undefined = parts.rawBody;
  if (body === undefined && parts.body !== undefined) body = JSON.stringify(parts.body);
  if (body === undefined && kind === "positive" && operation.requestBody?.required && method === operation.method)
    body = "{}";
  if (body !== undefined) headers["Content-Type"] = parts.contentType ?? "application/json";
  return {
    operation: method === operation.method ? operation : undefined,
    operationId: operation.operationId,
    method,
    path: operation.path,
    url: `${context.baseUrl}${path}${query ? `?${query}` : ""}`,
    headers,
    ...(body !== undefined ? { body } : {}),
    kind,
    label: parts.label,
    account,
    ...(parts.alsoAccepted ? { alsoAccepted: parts.alsoAccepted } : {}),
  };
}
