/**
 * Walks two documents side by side: paths, operations, webhooks, parameters, bodies, responses, security,
 * servers and info. Schemas are handed to schema.ts with their direction: operation requests flow to the
 * service, responses to the partner; webhooks the other way round.
 */
import { HTTP_METHODS } from "../../../src/http-methods.ts";
import { followRefs } from "../refs.ts";
import { type Change, ChangeSink, mergeChanges } from "./changes.ts";
import { DOC_KEYWORDS, type Document, isObject, type Json, type JsonObject } from "./resolve.ts";
import { type ChangeKind, checkId, defaultLevel, type Flow } from "./rules.ts";
import { compareSchemas, newComparison, type SchemaComparison, stable } from "./schema.ts";

const OPERATION_KEYS_HANDLED = new Set([
  "operationId",
  "parameters",
  "requestBody",
  "responses",
  "security",
  "servers",
  "tags",
  "callbacks",
  "x-sunset",
  "x-stability-level",
  ...DOC_KEYWORDS,
]);
/** x-stability-level values, least stable first. */
const STABILITY = ["draft", "alpha", "beta", "stable"];

export interface CompareOptions {
  /** Today as YYYY-MM-DD, for x-sunset dates (defaults to the clock's date). */
  today?: string;
}

interface Walk {
  cmp: SchemaComparison;
  sink: ChangeSink;
  today: string;
}

/** Compares two documents (OpenAPI 3.0 or 3.1, bundled); every change, merged per shared component and sorted. */
export function compareDocuments(base: Document, head: Document, options: CompareOptions = {}): Change[] {
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const walk: Walk = { cmp: newComparison(base, head, today), sink: new ChangeSink(), today };
  compareInfo(walk, base, head);
  compareServers(walk, base.servers, head.servers, "#/servers");
  compareSecuritySchemes(walk, base, head);
  compareItems(walk, "path", pathItems(base.paths), pathItems(head.paths));
  compareItems(walk, "webhook", pathItems(base.webhooks), pathItems(head.webhooks));
  return mergeChanges(walk.sink.changes);
}

/** Resolves a `$ref`ed object (path item, parameter, response, request body) in its own document. */
function deref(document: Document, value: Json | undefined): JsonObject | undefined {
  let target: Json | undefined;
  try {
    target = followRefs(document, value);
  } catch {
    return undefined; // A $ref loop that never reaches an object describes nothing (every $ref resolves: load.ts).
  }
  return isObject(target) ? target : undefined;
}

const code = (value: Json | undefined) => `\`${value === undefined ? "none" : JSON.stringify(value)}\``;

function docDiff(
  walk: Walk,
  flow: Flow,
  place: string,
  before: JsonObject,
  after: JsonObject,
  keys: Iterable<string> = DOC_KEYWORDS,
): void {
  const changed = [...keys].filter((key) => stable(before[key]) !== stable(after[key]));
  if (changed.length > 0) walk.sink.emit("documentation-changed", flow, place, `${changed.join(", ")} changed`);
}

function compareInfo(walk: Walk, base: Document, head: Document): void {
  const before = isObject(base.info) ? base.info : {};
  const after = isObject(head.info) ? head.info : {};
  if (before.version !== after.version) {
    walk.sink.emit(
      "version-changed",
      "toPartner",
      "#/info/version",
      `version ${String(before.version)} → ${String(after.version)}`,
    );
  }
  const keys = new Set([...Object.keys(before), ...Object.keys(after)].filter((key) => key !== "version"));
  docDiff(walk, "toPartner", "#/info", before, after, keys);
  docDiff(walk, "toPartner", "#", base, head, ["tags", "externalDocs"]);
  if (base.openapi !== head.openapi)
    walk.sink.emit(
      "openapi-version-changed",
      "toPartner",
      "#/openapi",
      `${code(base.openapi)} → ${code(head.openapi)}`,
    );
  const handled = new Set([
    "info",
    "servers",
    "paths",
    "webhooks",
    "components",
    "security",
    "tags",
    "externalDocs",
    "openapi",
    "jsonSchemaDialect",
  ]);
  for (const key of new Set([...Object.keys(base), ...Object.keys(head)])) {
    if (handled.has(key) || stable(base[key]) === stable(head[key])) continue;
    walk.sink.emit(
      key.startsWith("x-") ? "extension-changed" : "keyword-changed",
      "toPartner",
      `#/${key}`,
      `${key} changed`,
    );
  }
}

function compareServers(walk: Walk, before: Json | undefined, after: Json | undefined, place: string): void {
  const list = (value: Json | undefined) =>
    new Map((Array.isArray(value) ? value : []).filter(isObject).map((server) => [String(server.url), server]));
  const a = list(before);
  const b = list(after);
  for (const [url, server] of a) {
    const match = b.get(url);
    if (!match) walk.sink.emit("server-removed", "toService", `${place} ${url}`, `server \`${url}\` removed`);
    else {
      if (stable(variableDefaults(server)) !== stable(variableDefaults(match))) {
        walk.sink.emit("server-changed", "toService", `${place} ${url}`, `server \`${url}\` variables changed`);
      }
      if (
        stable(server.description) !== stable(match.description) ||
        stable(variableDocs(server)) !== stable(variableDocs(match))
      ) {
        walk.sink.emit("documentation-changed", "toService", `${place} ${url}`, "server description changed");
      }
    }
  }
  for (const url of b.keys())
    if (!a.has(url)) walk.sink.emit("server-added", "toService", `${place} ${url}`, `server \`${url}\` added`);
}

function variableDefaults(server: JsonObject): Json {
  const variables = isObject(server.variables) ? server.variables : {};
  return Object.fromEntries(
    Object.entries(variables).map(([name, v]) => [
      name,
      isObject(v) ? { default: v.default ?? null, enum: v.enum ?? null } : v,
    ]),
  );
}
function variableDocs(server: JsonObject): Json {
  const variables = isObject(server.variables) ? server.variables : {};
  return Object.fromEntries(
    Object.entries(variables).map(([name, v]) => [name, isObject(v) ? (v.description ?? null) : null]),
  );
}

function compareSecuritySchemes(walk: Walk, base: Document, head: Document): void {
  const schemes = (document: Document) => {
    const components = isObject(document.components) ? document.components : {};
    return isObject(components.securitySchemes) ? components.securitySchemes : {};
  };
  const a = schemes(base);
  const b = schemes(head);
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const place = `#/components/securitySchemes/${name}`;
    const before = deref(base, a[name]);
    const after = deref(head, b[name]);
    if (!after) walk.sink.emit("security-scheme-removed", "toService", place, `security scheme \`${name}\` removed`);
    else if (!before) walk.sink.emit("security-scheme-added", "toService", place, `security scheme \`${name}\` added`);
    else {
      const strip = (scheme: JsonObject) =>
        Object.fromEntries(Object.entries(scheme).filter(([key]) => !DOC_KEYWORDS.has(key)));
      // What clients put on the wire, or where they get their token: changing it locks every caller out.
      // HTTP authentication scheme names are case-insensitive (RFC 9110, 11.1): `Basic` is `basic`.
      const wireValue = (scheme: JsonObject, key: string) =>
        key === "scheme" && typeof scheme[key] === "string" ? scheme[key].toLowerCase() : scheme[key];
      const wire = ["type", "in", "name", "scheme", "openIdConnectUrl"].filter(
        (key) => stable(wireValue(before, key)) !== stable(wireValue(after, key)),
      );
      if (wire.length > 0)
        walk.sink.emit(
          "security-scheme-wire-changed",
          "toService",
          place,
          wire.map((key) => `${key} ${code(before[key])} → ${code(after[key])}`).join(", "),
        );
      else if (stable(strip(before)) !== stable(strip(after)))
        walk.sink.emit("security-scheme-changed", "toService", place, `security scheme \`${name}\` changed`);
      docDiff(walk, "toService", place, before, after);
    }
  }
}

interface Item {
  /** The path template or webhook name as written. */
  name: string;
  item: Json;
}

/** Path items keyed by their template with parameter names blanked, so renaming `{id}` is not a new path. */
function pathItems(value: Json | undefined): Map<string, Item> {
  const map = new Map<string, Item>();
  for (const [name, item] of Object.entries(isObject(value) ? value : {}))
    if (!name.startsWith("x-")) map.set(name.replace(/\{[^}]*\}/g, "{}"), { name, item });
  return map;
}

/** Is this date (YYYY-MM-DD, or an RFC 3339 date-time) valid? Returns its day, else undefined. */
function sunsetDay(value: Json | undefined): string | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value.trim());
  if (!match || Number.isNaN(Date.parse(`${match[0]}T00:00:00Z`))) return undefined;
  return match[0];
}

function isUnstable(op: JsonObject): string | undefined {
  const level = op["x-stability-level"];
  return level === "draft" || level === "alpha" ? `x-stability-level ${level}: may change` : undefined;
}

/** How removing this operation (or parameter) counts: deprecated ones may go, after their sunset. */
function removal(walk: Walk, owner: JsonObject): { kind: "plain" | "after" | "before" | "invalid"; note: string } {
  if (owner.deprecated !== true) return { kind: "plain", note: "removed without deprecation" };
  const sunset = owner["x-sunset"];
  if (sunset === undefined) return { kind: "after", note: "was deprecated, no sunset date" };
  const day = sunsetDay(sunset);
  if (!day) return { kind: "invalid", note: `x-sunset ${code(sunset)} is not a date` };
  if (day > walk.today) return { kind: "before", note: `removed before its sunset ${day}` };
  return { kind: "after", note: `deprecated, sunset ${day} has passed` };
}

function operationsOf(document: Document, item: Json): Map<string, JsonObject> {
  const resolved = deref(document, item) ?? {};
  const map = new Map<string, JsonObject>();
  for (const method of HTTP_METHODS) if (isObject(resolved[method])) map.set(method, resolved[method] as JsonObject);
  return map;
}

function emitRemoval(walk: Walk, what: "path" | "webhook", where: string, op: JsonObject, whole: boolean): void {
  const unstable = isUnstable(op);
  const verdict = removal(walk, op);
  const noun = what === "path" ? (whole ? "path removed" : "operation removed") : "webhook removed";
  if (unstable) return walk.sink.emit("operation-removed-unstable", "toPartner", where, `${noun} (${unstable})`);
  const kinds: Record<typeof verdict.kind, ChangeKind> =
    what === "path"
      ? {
          plain: "operation-removed",
          after: "operation-removed-after-deprecation",
          before: "operation-removed-before-sunset",
          invalid: "sunset-invalid",
        }
      : {
          plain: "webhook-removed",
          after: "webhook-removed-after-deprecation",
          before: "webhook-removed",
          invalid: "sunset-invalid",
        };
  walk.sink.emit(kinds[verdict.kind], "toPartner", where, `${noun}: ${verdict.note}`);
}

function compareItems(walk: Walk, what: "path" | "webhook", before: Map<string, Item>, after: Map<string, Item>): void {
  const { base, head } = walk.cmp;
  const label = (name: string) => (what === "path" ? name : `webhook ${name}`);
  const where = (method: string, name: string) =>
    what === "path" ? `${method.toUpperCase()} ${name}` : `webhook ${name} ${method.toUpperCase()}`;
  for (const [key, { name, item }] of before) {
    const match = after.get(key);
    if (!match) {
      const ops = operationsOf(base, item);
      const plain = [...ops.values()].some((op) => !isUnstable(op) && removal(walk, op).kind === "plain");
      // A path item without operations serves nothing: removing it breaks no caller.
      if (what === "path" && plain)
        walk.sink.emit("path-removed", "toPartner", label(name), `path \`${name}\` removed`);
      else for (const [method, op] of ops) emitRemoval(walk, what, where(method, name), op, true);
      continue;
    }
    const a = deref(base, item) ?? {};
    const b = deref(head, match.item) ?? {};
    for (const method of HTTP_METHODS) {
      const place = where(method, match.name);
      const opA = isObject(a[method]) ? (a[method] as JsonObject) : undefined;
      const opB = isObject(b[method]) ? (b[method] as JsonObject) : undefined;
      if (opA && !opB) emitRemoval(walk, what, place, opA, false);
      else if (!opA && opB)
        walk.sink.emit(what === "path" ? "operation-added" : "webhook-added", "toPartner", place, "operation added");
      else if (opA && opB) {
        const local: Walk = { ...walk, sink: new ChangeSink() };
        compareOperation(
          local,
          what,
          place,
          { item: a, op: opA, template: name },
          { item: b, op: opB, template: match.name },
        );
        walk.sink.addFrom(local.sink.changes, undefined, isUnstable(opA));
      }
    }
    docDiff(walk, "toPartner", label(match.name), a, b, ["summary", "description"]);
    if (what === "path") compareServers(walk, a.servers, b.servers, `${match.name} servers`);
  }
  for (const [key, { name }] of after) {
    if (!before.has(key))
      walk.sink.emit(
        what === "path" ? "path-added" : "webhook-added",
        "toPartner",
        label(name),
        `${what} \`${name}\` added`,
      );
  }
}

interface Side {
  item: JsonObject;
  op: JsonObject;
  /** The path template as this side writes it, to match path parameters by position. */
  template: string;
}

function compareOperation(walk: Walk, what: "path" | "webhook", where: string, a: Side, b: Side): void {
  const { base, head } = walk.cmp;
  // Webhooks reverse the roles: the service sends the request and the partner answers.
  const requestFlow: Flow = what === "path" ? "toService" : "toPartner";
  const responseFlow: Flow = what === "path" ? "toPartner" : "toService";

  if (a.op.operationId !== undefined && a.op.operationId !== b.op.operationId) {
    walk.sink.emit(
      "operation-id-changed",
      requestFlow,
      where,
      `operationId ${code(a.op.operationId)} → ${code(b.op.operationId)}`,
    );
  } else if (a.op.operationId === undefined && b.op.operationId !== undefined) {
    walk.sink.emit("documentation-changed", requestFlow, where, `operationId ${code(b.op.operationId)} added`);
  }
  if (stable(a.op.tags) !== stable(b.op.tags))
    walk.sink.emit("tags-changed", requestFlow, where, `tags ${code(a.op.tags)} → ${code(b.op.tags)}`);
  compareLifecycle(walk, where, a.op, b.op);
  docDiff(
    walk,
    requestFlow,
    where,
    a.op,
    b.op,
    [...DOC_KEYWORDS].filter((key) => key !== "deprecated"),
  );
  for (const key of new Set([...Object.keys(a.op), ...Object.keys(b.op)])) {
    if (OPERATION_KEYS_HANDLED.has(key) || stable(a.op[key]) === stable(b.op[key])) continue;
    walk.sink.emit(
      key.startsWith("x-") ? "extension-changed" : "keyword-changed",
      requestFlow,
      where,
      `${key} ${code(a.op[key])} → ${code(b.op[key])}`,
    );
  }
  compareSecurity(walk, where, a.op.security ?? base.security, b.op.security ?? head.security);
  compareServers(walk, a.op.servers, b.op.servers, `${where} servers`);
  compareParameters(walk, where, requestFlow, parameters(base, a), parameters(head, b));
  compareBody(
    walk,
    `${where} request body`,
    requestFlow,
    deref(base, a.op.requestBody),
    deref(head, b.op.requestBody),
    where,
  );
  compareResponses(walk, where, responseFlow, a.op.responses, b.op.responses);
}

/** Deprecation, x-sunset and x-stability-level of one operation. */
function compareLifecycle(walk: Walk, where: string, a: JsonObject, b: JsonObject): void {
  if (a.deprecated !== true && b.deprecated === true)
    walk.sink.emit("operation-deprecated", "toPartner", where, "operation deprecated");
  if (a.deprecated === true && b.deprecated !== true)
    walk.sink.emit("operation-reactivated", "toPartner", where, "operation no longer deprecated");
  compareSunset(walk, where, a, b);
  const before = a["x-stability-level"];
  const after = b["x-stability-level"];
  const invalid = [before, after].find((level) => level !== undefined && !STABILITY.includes(String(level)));
  if (invalid !== undefined) {
    walk.sink.emit(
      "stability-invalid",
      "toPartner",
      where,
      `x-stability-level ${code(invalid)} is not one of ${STABILITY.join(", ")}`,
    );
  } else if (before !== undefined && after !== undefined && before !== after && STABILITY.includes(String(before))) {
    const down = STABILITY.indexOf(String(after)) < STABILITY.indexOf(String(before));
    walk.sink.emit(
      down ? "stability-decreased" : "stability-increased",
      "toPartner",
      where,
      `x-stability-level ${code(before)} → ${code(after)}`,
    );
  }
}

function compareSunset(walk: Walk, where: string, a: JsonObject, b: JsonObject): void {
  const before = a["x-sunset"];
  const after = b["x-sunset"];
  if (stable(before) === stable(after)) return;
  const text = `x-sunset ${code(before)} → ${code(after)}`;
  if (after !== undefined && !sunsetDay(after)) return walk.sink.emit("sunset-invalid", "toPartner", where, text);
  if (a.deprecated !== true || b.deprecated !== true)
    return walk.sink.emit("extension-changed", "toPartner", where, text);
  if (after === undefined) return walk.sink.emit("sunset-removed", "toPartner", where, text);
  const from = sunsetDay(before);
  const to = sunsetDay(after)!;
  if (!from) return walk.sink.emit("extension-changed", "toPartner", where, text);
  walk.sink.emit(to < from ? "sunset-earlier" : "sunset-later", "toPartner", where, text);
}

/** Requirement alternatives keyed by their schemes; each with its schemes' scopes. No security at all is none. */
function securityAlternatives(value: Json | undefined): Map<string, Map<string, Set<string>>> {
  const map = new Map<string, Map<string, Set<string>>>();
  for (const requirement of Array.isArray(value) ? value.filter(isObject) : []) {
    const names = Object.keys(requirement).sort();
    const scopes = new Map(
      names.map((name) => {
        const list = requirement[name];
        return [name, new Set(Array.isArray(list) ? list.map(String) : [])];
      }),
    );
    map.set(names.join(" + ") || "anonymous", scopes);
  }
  return map;
}

function compareSecurity(walk: Walk, where: string, before: Json | undefined, after: Json | undefined): void {
  const a = securityAlternatives(before);
  const b = securityAlternatives(after);
  // No requirement, or an empty one (`{}`), lets anyone call: dropping others then breaks no caller.
  const anonymous = b.size === 0 || b.has("anonymous");
  // Anonymous callers (no credentials at all) break when the first requirement arrives.
  if ((a.size === 0 || a.has("anonymous")) && !anonymous)
    walk.sink.emit(
      "security-anonymous-access-removed",
      "toPartner",
      `${where} security`,
      "anonymous calls no longer allowed",
    );
  for (const [key, scopesBefore] of a) {
    if (key === "anonymous" && !anonymous) continue;
    const scopesAfter = b.get(key);
    if (!scopesAfter) {
      walk.sink.emit(
        anonymous ? "security-made-optional" : "security-requirement-removed",
        "toPartner",
        `${where} security`,
        `security \`${key}\` removed${anonymous ? " (anonymous calls allowed)" : ""}`,
      );
      continue;
    }
    for (const [scheme, list] of scopesAfter) {
      const old = scopesBefore.get(scheme) ?? new Set();
      const added = [...list].filter((scope) => !old.has(scope));
      const removed = [...old].filter((scope) => !list.has(scope));
      if (added.length > 0)
        walk.sink.emit(
          "security-scope-added",
          "toPartner",
          `${where} security`,
          `${scheme}: scopes added: ${added.join(", ")}`,
        );
      if (removed.length > 0)
        walk.sink.emit(
          "security-scope-removed",
          "toPartner",
          `${where} security`,
          `${scheme}: scopes removed: ${removed.join(", ")}`,
        );
    }
  }
  for (const key of b.keys())
    if (!a.has(key))
      walk.sink.emit("security-requirement-added", "toPartner", `${where} security`, `security \`${key}\` added`);
}

interface Parameter {
  parameter: JsonObject;
  /** Shown in messages and locations: `query limit`, `path {id}`. */
  label: string;
  /** A parameter referenced from components keeps that pointer, so its schema changes are located there. */
  origin?: string;
}

/**
 * Path-level and operation-level parameters, the latter winning. Path parameters are keyed by their
 * position in the template, so `/books/{bookId}` → `/books/{id}` is the same parameter renamed.
 */
function parameters(document: Document, side: Side): Map<string, Parameter> {
  const map = new Map<string, Parameter>();
  const slots = [...side.template.matchAll(/\{([^}]*)\}/g)].map((match) => match[1]);
  for (const list of [side.item.parameters, side.op.parameters]) {
    for (const entry of Array.isArray(list) ? list : []) {
      const parameter = deref(document, entry);
      if (!parameter) continue;
      const location = String(parameter.in);
      const name = String(parameter.name);
      const slot = location === "path" ? slots.indexOf(name) : -1;
      const key = slot >= 0 ? `path #${slot}` : `${location} ${location === "header" ? name.toLowerCase() : name}`;
      const origin = isObject(entry) && typeof entry.$ref === "string" ? entry.$ref : undefined;
      map.set(key, { parameter, label: `${location} ${name}`, origin });
    }
  }
  return map;
}

function headers(document: Document, value: Json | undefined): Map<string, Parameter> {
  const map = new Map<string, Parameter>();
  for (const [name, entry] of Object.entries(isObject(value) ? value : {})) {
    const header = deref(document, entry);
    if (!header) continue;
    const origin = isObject(entry) && typeof entry.$ref === "string" ? entry.$ref : undefined;
    map.set(name.toLowerCase(), { parameter: { ...header, name, in: "header" }, label: `header ${name}`, origin });
  }
  return map;
}

/** A parameter's schema: `schema`, or the schema of its one `content` entry. */
function parameterSchema(parameter: JsonObject): Json | undefined {
  if (parameter.schema !== undefined) return parameter.schema;
  const content = isObject(parameter.content) ? Object.values(parameter.content) : [];
  const media = content.find(isObject);
  return media?.schema;
}

/** A schema whose values are single strings, numbers or booleans (one `type`, none of them array or object). */
function isScalar(document: Document, value: Json | undefined): boolean {
  const schema = deref(document, value);
  const types = Array.isArray(schema?.type) ? schema.type : [schema?.type];
  return (
    types.length > 0 &&
    types.every((type) => typeof type === "string" && ["string", "number", "integer", "boolean", "null"].includes(type))
  );
}

function serialization(parameter: JsonObject): { style: string; explode: boolean } {
  const defaults: Record<string, string> = { query: "form", cookie: "form", path: "simple", header: "simple" };
  const style = typeof parameter.style === "string" ? parameter.style : (defaults[String(parameter.in)] ?? "form");
  const explode = typeof parameter.explode === "boolean" ? parameter.explode : style === "form";
  return { style, explode };
}

/**
 * What a response header's schema may change without failing the gate: its range of values. oasdiff checks a
 * response header's presence, requiredness, type, format and nullability only; a wider range of values is
 * reported, as information.
 */
const HEADER_VALUE_KINDS = new Set<ChangeKind>([
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

function asHeaderValues(changes: readonly Change[]): Change[] {
  return changes.map((change) =>
    HEADER_VALUE_KINDS.has(change.kind)
      ? {
          ...change,
          kind: "header-values-changed",
          check: checkId("header-values-changed", "toPartner"),
          level: defaultLevel("header-values-changed", "toPartner"),
          message: `${change.message} (response header values: ${change.check})`,
        }
      : change,
  );
}

function compareParameters(
  walk: Walk,
  where: string,
  flow: Flow,
  a: Map<string, Parameter>,
  b: Map<string, Parameter>,
  responseHeaders = false,
): void {
  const isRequired = (p: JsonObject) => p.required === true || p.in === "path";
  for (const [key, { parameter, label }] of a) {
    if (b.has(key)) continue;
    const place = `${where} ${label}`;
    const verdict = removal(walk, parameter);
    const kinds: Record<typeof verdict.kind, ChangeKind> = {
      plain: "parameter-removed",
      after: "parameter-removed-after-deprecation",
      before: "parameter-removed-before-sunset",
      invalid: "sunset-invalid",
    };
    walk.sink.emit(
      kinds[verdict.kind],
      flow,
      place,
      `\`${label}\` removed${verdict.kind === "plain" ? "" : `: ${verdict.note}`}`,
    );
  }
  for (const [key, next] of b) {
    const after = next.parameter;
    const place = `${where} ${next.label}`;
    const old = a.get(key);
    if (!old) {
      walk.sink.emit(
        isRequired(after) ? "parameter-added-required" : "parameter-added-optional",
        flow,
        place,
        `${isRequired(after) ? "required" : "optional"} \`${next.label}\` added`,
      );
      continue;
    }
    const before = old.parameter;
    if (old.label !== next.label)
      walk.sink.emit("documentation-changed", flow, place, `\`${old.label}\` renamed to \`${next.label}\``);
    if (!isRequired(before) && isRequired(after))
      walk.sink.emit("parameter-became-required", flow, place, `\`${next.label}\` became required`);
    if (isRequired(before) && !isRequired(after))
      walk.sink.emit("parameter-became-optional", flow, place, `\`${next.label}\` became optional`);
    if (before.deprecated !== true && after.deprecated === true)
      walk.sink.emit("parameter-deprecated", flow, place, `\`${next.label}\` deprecated`);
    compareSunset(walk, place, before, after);
    const [was, now] = [serialization(before), serialization(after)];
    // explode makes no difference to a single value (a string, a number): only to arrays and objects.
    const scalar = isScalar(walk.cmp.base, before.schema) && isScalar(walk.cmp.head, after.schema);
    if (was.style !== now.style || (was.explode !== now.explode && !scalar))
      walk.sink.emit(
        "parameter-serialization-changed",
        flow,
        place,
        `\`${next.label}\`: ${stable(was)} → ${stable(now)}`,
      );
    if ((before.allowReserved === true) !== (after.allowReserved === true))
      walk.sink.emit(
        after.allowReserved === true ? "parameter-reserved-allowed" : "parameter-reserved-disallowed",
        flow,
        place,
        `\`${next.label}\`: allowReserved ${code(before.allowReserved)} → ${code(after.allowReserved)}`,
      );
    const docs = new ChangeSink();
    docDiff(
      { ...walk, sink: docs },
      flow,
      next.origin ?? place,
      before,
      after,
      [...DOC_KEYWORDS].filter((k) => k !== "deprecated"),
    );
    walk.sink.addFrom(docs.changes, where);
    const values = new ChangeSink();
    compareSchemaUse(
      { ...walk, sink: values },
      flow,
      parameterSchema(before),
      parameterSchema(after),
      old.origin ? `${old.origin}/schema` : place,
      next.origin ? `${next.origin}/schema` : place,
      where,
    );
    walk.sink.addFrom(responseHeaders ? asHeaderValues(values.changes) : values.changes);
  }
}

/** Compares one schema use; changes inside components get `user` in their "used by" list. */
function compareSchemaUse(
  walk: Walk,
  flow: Flow,
  before: Json | undefined,
  after: Json | undefined,
  originBefore: string,
  originAfter: string,
  user: string,
): void {
  if (before === undefined && after === undefined) return;
  const local = new ChangeSink();
  compareSchemas(
    walk.cmp,
    { schema: before ?? {}, origin: originBefore, path: "" },
    { schema: after ?? {}, origin: originAfter, path: "" },
    flow,
    local,
  );
  walk.sink.addFrom(local.changes, user);
}

function compareBody(
  walk: Walk,
  place: string,
  flow: Flow,
  a: JsonObject | undefined,
  b: JsonObject | undefined,
  user: string,
): void {
  if (!a && !b) return;
  if (a && !b) return walk.sink.emit("body-removed", flow, place, "body removed");
  if (!a && b)
    return walk.sink.emit(
      b.required === true ? "body-added-required" : "body-added-optional",
      flow,
      place,
      `${b.required === true ? "required" : "optional"} body added`,
    );
  if (a!.required !== true && b!.required === true)
    walk.sink.emit("body-became-required", flow, place, "body became required");
  if (a!.required === true && b!.required !== true)
    walk.sink.emit("body-became-optional", flow, place, "body became optional");
  docDiff(walk, flow, place, a!, b!);
  compareContent(walk, place, flow, a!.content, b!.content, user);
}

/** The media type without its parameters: `application/json; charset=utf-8` is `application/json`. */
const mediaBase = (type: string) => type.split(";")[0]!.trim().toLowerCase();

/** A media type's parameters (`charset=utf-8`), names lower-cased and values unquoted. */
function mediaParameters(type: string): Map<string, string> {
  const parameters = new Map<string, string>();
  for (const part of type.split(";").slice(1)) {
    const [name, ...value] = part.split("=");
    if (!name?.trim()) continue;
    parameters.set(
      name.trim().toLowerCase(),
      value
        .join("=")
        .trim()
        .replace(/^"(.*)"$/, "$1"),
    );
  }
  return parameters;
}

/** The same media type with the same parameters, however spelled (`application/json;charset=UTF-8`). */
function sameMedia(a: string, b: string): boolean {
  if (mediaBase(a) !== mediaBase(b)) return false;
  const [x, y] = [mediaParameters(a), mediaParameters(b)];
  return x.size === y.size && [...x].every(([name, value]) => y.get(name)?.toLowerCase() === value.toLowerCase());
}

/**
 * Parameters added to a media type narrow it (`application/json` → `application/json; charset=utf-8`: only
 * UTF-8 now), removed ones widen it, a changed value is neither.
 */
function parameterChange(
  before: Map<string, string>,
  after: Map<string, string>,
): "media-type-parameters-added" | "media-type-parameters-removed" | "media-type-parameters-changed" | undefined {
  const same = (name: string) => before.get(name)?.toLowerCase() === after.get(name)?.toLowerCase();
  const changed = [...before.keys()].some((name) => after.has(name) && !same(name));
  const removed = [...before.keys()].some((name) => !after.has(name));
  const added = [...after.keys()].some((name) => !before.has(name));
  if (changed || (removed && added)) return "media-type-parameters-changed";
  if (removed) return "media-type-parameters-removed";
  if (added) return "media-type-parameters-added";
  return undefined;
}

function compareContent(
  walk: Walk,
  place: string,
  flow: Flow,
  before: Json | undefined,
  after: Json | undefined,
  user: string,
): void {
  const a = isObject(before) ? before : {};
  const b = isObject(after) ? after : {};
  const match = (type: string, other: JsonObject) =>
    type in other
      ? type
      : (Object.keys(other).find((candidate) => sameMedia(candidate, type)) ??
        Object.keys(other).find((candidate) => mediaBase(candidate) === mediaBase(type)));
  const removed = Object.keys(a).filter((type) => match(type, b) === undefined);
  const added = Object.keys(b).filter((type) => match(type, a) === undefined);
  // A media type replaced by a wider (`application/*`) or narrower one is a rename, judged by direction.
  const renamed = new Map<string, string>();
  const suffixes = flow === "toPartner";
  for (const type of removed) {
    const other = added.find(
      (candidate) =>
        !renamed.has(candidate) && (covers(candidate, type, suffixes) || covers(type, candidate, suffixes)),
    );
    if (other) renamed.set(other, type);
  }
  const olds = new Set(renamed.values());
  for (const type of removed)
    if (!olds.has(type))
      walk.sink.emit("media-type-removed", flow, `${place} ${type}`, `media type \`${type}\` removed`);
  for (const [type, media] of Object.entries(b)) {
    const where = `${place} ${type}`;
    const old = renamed.get(type) ?? match(type, a);
    if (old === undefined) {
      walk.sink.emit("media-type-added", flow, where, `media type \`${type}\` added`);
      continue;
    }
    if (renamed.has(type))
      walk.sink.emit(
        covers(type, old, suffixes) ? "media-type-widened" : "media-type-narrowed",
        flow,
        where,
        `media type \`${old}\` → \`${type}\``,
      );
    const parameters = parameterChange(mediaParameters(old), mediaParameters(type));
    if (parameters)
      walk.sink.emit(
        parameters,
        flow,
        where,
        `media type parameters \`${old}\` → \`${type}\` (${parameters.replace("media-type-parameters-", "")})`,
      );
    const x = isObject(a[old]) ? (a[old] as JsonObject) : {};
    const y = isObject(media) ? media : {};
    docDiff(walk, flow, where, x, y);
    compareSchemaUse(walk, flow, x.schema, y.schema, where, where, user);
    // OpenAPI 3.2: the schema of each item of a sequential media type (application/jsonl, text/event-stream).
    compareSchemaUse(walk, flow, x.itemSchema, y.itemSchema, `${where} itemSchema`, `${where} itemSchema`, user);
  }
}

/**
 * Whether media range `general` (`*\/*`, `application/*`) includes `specific`. With `suffixes` (what a
 * response promises) a structured syntax suffix counts too: `application/problem+json` is a kind of
 * `application/json`. A request in `application/merge-patch+json` is another format, not a narrower JSON.
 */
function covers(general: string, specific: string, suffixes: boolean): boolean {
  const [g, s] = [mediaBase(general), mediaBase(specific)];
  if (g === s) return false;
  if (g === "*/*") return true;
  const [type, subtype] = g.split("/");
  if (subtype === "*") return s.startsWith(`${type}/`);
  return suffixes && s.startsWith(`${type}/`) && s.endsWith(`+${subtype}`);
}

function compareResponses(
  walk: Walk,
  where: string,
  flow: Flow,
  before: Json | undefined,
  after: Json | undefined,
): void {
  const { base, head } = walk.cmp;
  const statuses = (value: Json | undefined) =>
    Object.fromEntries(Object.entries(isObject(value) ? value : {}).filter(([key]) => !key.startsWith("x-")));
  const a = statuses(before);
  const b = statuses(after);
  const success = (status: string) => /^2(\d\d|XX)$/i.test(status);
  const find = (status: string, other: JsonObject) =>
    Object.keys(other).find((candidate) => candidate.toUpperCase() === status.toUpperCase());
  for (const status of Object.keys(a)) {
    if (find(status, b) === undefined)
      walk.sink.emit(
        success(status) ? "success-status-removed" : "status-removed",
        flow,
        `${where} response ${status}`,
        `response \`${status}\` removed`,
      );
  }
  for (const status of Object.keys(b)) {
    const place = `${where} response ${status}`;
    const old = find(status, a);
    if (old === undefined) {
      walk.sink.emit("status-added", flow, place, `response \`${status}\` added`);
      continue;
    }
    const x = deref(base, a[old]) ?? {};
    const y = deref(head, b[status]) ?? {};
    docDiff(walk, flow, place, x, y);
    compareParameters(walk, place, flow, headers(base, x.headers), headers(head, y.headers), flow === "toPartner");
    compareContent(walk, place, flow, x.content, y.content, where);
  }
}
