/**
 * Walks two bundled documents side by side: paths, operations, webhooks, parameters, bodies,
 * responses, security, servers and info. Schemas are handed to schema.ts with their direction:
 * operation requests flow to the service, responses to the partner; webhooks the other way round.
 */
import { type Change, ChangeSink, mergeChanges } from "./changes.ts";
import { DOC_KEYWORDS, type Document, isObject, type Json, type JsonObject, lookup } from "./resolve.ts";
import type { Flow } from "./rules.ts";
import { compareSchemas, newComparison, type SchemaComparison } from "./schema.ts";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const OPERATION_KEYS_HANDLED = new Set([
  "operationId",
  "parameters",
  "requestBody",
  "responses",
  "security",
  "servers",
  "tags",
  ...DOC_KEYWORDS,
]);

interface Walk {
  cmp: SchemaComparison;
  sink: ChangeSink;
}

/** Compares two bundled OpenAPI 3.1 documents; every change, merged per shared component and sorted. */
export function compareDocuments(base: Document, head: Document): Change[] {
  const walk: Walk = { cmp: newComparison(base, head), sink: new ChangeSink() };
  compareInfo(walk, base, head);
  compareServers(walk, base.servers, head.servers, "#/servers");
  compareSecuritySchemes(walk, base, head);
  compareItems(walk, "path", pathItems(base.paths), pathItems(head.paths), base, head);
  compareItems(walk, "webhook", pathItems(base.webhooks), pathItems(head.webhooks), base, head);
  return mergeChanges(walk.sink.changes);
}

const stable = (value: Json | undefined): string => JSON.stringify(sortKeys(value ?? null));
function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys(value[key]!)]),
    );
  return value;
}

/** Resolves a `$ref`ed object (path item, parameter, response, request body) in its own document. */
function deref(document: Document, value: Json | undefined): JsonObject | undefined {
  let current = value;
  for (let hops = 0; isObject(current) && typeof current.$ref === "string" && hops < 32; hops++) {
    const { $ref, ...siblings } = current;
    const target = lookup(document, $ref as string);
    current = isObject(target) ? { ...target, ...siblings } : target;
  }
  return isObject(current) ? current : undefined;
}

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

const code = (value: Json | undefined) => `\`${value === undefined ? "none" : JSON.stringify(value)}\``;

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
      if (stable(strip(before)) !== stable(strip(after)))
        walk.sink.emit("security-scheme-changed", "toService", place, `security scheme \`${name}\` changed`);
      docDiff(walk, "toService", place, before, after);
    }
  }
}

/** Path items keyed by their template with parameter names blanked, so renaming `{id}` is not a new path. */
function pathItems(value: Json | undefined): Map<string, { name: string; item: Json }> {
  const map = new Map<string, { name: string; item: Json }>();
  for (const [name, item] of Object.entries(isObject(value) ? value : {}))
    map.set(name.replace(/\{[^}]*\}/g, "{}"), { name, item });
  return map;
}

function compareItems(
  walk: Walk,
  what: "path" | "webhook",
  before: ReturnType<typeof pathItems>,
  after: ReturnType<typeof pathItems>,
  base: Document,
  head: Document,
): void {
  const label = (name: string) => (what === "path" ? name : `webhook ${name}`);
  for (const [key, { name, item }] of before) {
    const match = after.get(key);
    if (!match) {
      walk.sink.emit(
        what === "path" ? "path-removed" : "webhook-removed",
        "toPartner",
        label(name),
        `${what} \`${name}\` removed`,
      );
      continue;
    }
    const a = deref(base, item) ?? {};
    const b = deref(head, match.item) ?? {};
    for (const method of METHODS) {
      const where =
        what === "path" ? `${method.toUpperCase()} ${match.name}` : `webhook ${match.name} ${method.toUpperCase()}`;
      if (a[method] && !b[method])
        walk.sink.emit(
          what === "path" ? "operation-removed" : "webhook-removed",
          "toPartner",
          where,
          `${what === "path" ? "operation" : "webhook operation"} removed`,
        );
      else if (!a[method] && b[method])
        walk.sink.emit(
          what === "path" ? "operation-added" : "webhook-added",
          "toPartner",
          where,
          `${what === "path" ? "operation" : "webhook operation"} added`,
        );
      else if (isObject(a[method]) && isObject(b[method])) {
        compareOperation(
          walk,
          what,
          where,
          { item: a, op: a[method] as JsonObject },
          { item: b, op: b[method] as JsonObject },
        );
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
}

function compareOperation(walk: Walk, what: "path" | "webhook", where: string, a: Side, b: Side): void {
  const { base, head } = walk.cmp;
  // Webhooks reverse the roles: the service sends the request and the partner answers.
  const requestFlow: Flow = what === "path" ? "toService" : "toPartner";
  const responseFlow: Flow = what === "path" ? "toPartner" : "toService";

  if (a.op.operationId !== b.op.operationId) {
    walk.sink.emit(
      "operation-id-changed",
      requestFlow,
      where,
      `operationId ${code(a.op.operationId)} → ${code(b.op.operationId)}`,
    );
  }
  docDiff(walk, requestFlow, where, a.op, b.op, [...DOC_KEYWORDS, "tags"]);
  for (const key of new Set([...Object.keys(a.op), ...Object.keys(b.op)])) {
    if (OPERATION_KEYS_HANDLED.has(key) || stable(a.op[key]) === stable(b.op[key])) continue;
    walk.sink.emit(
      key.startsWith("x-") ? "extension-changed" : "keyword-changed",
      requestFlow,
      where,
      `${key} ${code(a.op[key])} → ${code(b.op[key])}`,
    );
  }
  const security = (document: Document, op: JsonObject) => normaliseSecurity(op.security ?? document.security);
  if (security(base, a.op) !== security(head, b.op)) {
    walk.sink.emit(
      "security-changed",
      requestFlow,
      where,
      `security ${security(base, a.op)} → ${security(head, b.op)}`,
    );
  }
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

function normaliseSecurity(value: Json | undefined): string {
  if (!Array.isArray(value)) return "none";
  const alternatives = value.filter(isObject).map(
    (requirement) =>
      Object.keys(requirement)
        .sort()
        .map((name) => {
          const scopes = requirement[name];
          return `${name}${Array.isArray(scopes) && scopes.length > 0 ? `(${scopes.map(String).sort().join(",")})` : ""}`;
        })
        .join("+") || "anonymous",
  );
  return alternatives.length === 0 ? "none" : [...new Set(alternatives)].sort().join(" | ");
}

/** Path-level and operation-level parameters, the latter winning, keyed by location and name. */
function parameters(document: Document, side: Side): Map<string, JsonObject> {
  const map = new Map<string, JsonObject>();
  for (const list of [side.item.parameters, side.op.parameters]) {
    for (const entry of Array.isArray(list) ? list : []) {
      const parameter = deref(document, entry);
      if (!parameter) continue;
      const location = String(parameter.in);
      const name = location === "header" ? String(parameter.name).toLowerCase() : String(parameter.name);
      map.set(`${location} ${name}`, { ...parameter, $schemaOrigin: schemaOrigin(entry) });
    }
  }
  return map;
}

/** A parameter referenced from components keeps that pointer, so its schema changes are located there. */
function schemaOrigin(entry: Json): Json {
  return isObject(entry) && typeof entry.$ref === "string" ? entry.$ref : null;
}

function compareParameters(
  walk: Walk,
  where: string,
  flow: Flow,
  a: Map<string, JsonObject>,
  b: Map<string, JsonObject>,
  noun = "parameter",
): void {
  for (const [key, parameter] of a) {
    if (!b.has(key))
      walk.sink.emit(
        "parameter-removed",
        flow,
        `${where} ${noun} ${key}`,
        `${noun} \`${parameter.name ?? key}\` (${parameter.in ?? "header"}) removed`,
      );
  }
  for (const [key, after] of b) {
    const place = `${where} ${noun} ${key}`;
    const before = a.get(key);
    const label = `${noun} \`${after.name ?? key}\``;
    if (!before) {
      walk.sink.emit(
        after.required === true ? "parameter-added-required" : "parameter-added-optional",
        flow,
        place,
        `${after.required === true ? "required" : "optional"} ${label} added`,
      );
      continue;
    }
    if (before.required !== true && after.required === true)
      walk.sink.emit("parameter-became-required", flow, place, `${label} became required`);
    if (before.required === true && after.required !== true)
      walk.sink.emit("parameter-became-optional", flow, place, `${label} became optional`);
    for (const key2 of ["style", "explode", "allowReserved", "allowEmptyValue", "content"]) {
      if (stable(before[key2]) !== stable(after[key2]))
        walk.sink.emit(
          "parameter-serialization-changed",
          flow,
          place,
          `${label}: ${key2} ${code(before[key2])} → ${code(after[key2])}`,
        );
    }
    const origin = typeof after.$schemaOrigin === "string" ? after.$schemaOrigin : place;
    const docs = new ChangeSink();
    docDiff({ cmp: walk.cmp, sink: docs }, flow, origin, before, after);
    walk.sink.addFrom(docs.changes, where);
    compareSchemaUse(
      walk,
      flow,
      before.schema,
      after.schema,
      typeof before.$schemaOrigin === "string" ? `${before.$schemaOrigin}/schema` : place,
      `${origin === place ? place : `${origin}/schema`}`,
      where,
    );
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
  for (const type of Object.keys(a))
    if (!(type in b)) walk.sink.emit("media-type-removed", flow, `${place} ${type}`, `media type \`${type}\` removed`);
  for (const [type, media] of Object.entries(b)) {
    const where = `${place} ${type}`;
    if (!(type in a)) {
      walk.sink.emit("media-type-added", flow, where, `media type \`${type}\` added`);
      continue;
    }
    const x = isObject(a[type]) ? (a[type] as JsonObject) : {};
    const y = isObject(media) ? media : {};
    docDiff(walk, flow, where, x, y);
    compareSchemaUse(walk, flow, x.schema, y.schema, where, where, user);
  }
}

function compareResponses(
  walk: Walk,
  where: string,
  flow: Flow,
  before: Json | undefined,
  after: Json | undefined,
): void {
  const { base, head } = walk.cmp;
  const a = isObject(before) ? before : {};
  const b = isObject(after) ? after : {};
  const success = (status: string) => /^2(\d\d|XX)$/i.test(status);
  for (const status of Object.keys(a)) {
    if (!(status in b))
      walk.sink.emit(
        success(status) ? "success-status-removed" : "status-removed",
        flow,
        `${where} response ${status}`,
        `response \`${status}\` removed`,
      );
  }
  for (const status of Object.keys(b)) {
    const place = `${where} response ${status}`;
    if (!(status in a)) {
      walk.sink.emit("status-added", flow, place, `response \`${status}\` added`);
      continue;
    }
    const x = deref(base, a[status]) ?? {};
    const y = deref(head, b[status]) ?? {};
    docDiff(walk, flow, place, x, y);
    compareParameters(walk, `${place}`, flow, headers(base, x.headers), headers(head, y.headers), "header");
    compareContent(walk, place, flow, x.content, y.content, where);
  }
}

function headers(document: Document, value: Json | undefined): Map<string, JsonObject> {
  const map = new Map<string, JsonObject>();
  for (const [name, entry] of Object.entries(isObject(value) ? value : {})) {
    const header = deref(document, entry);
    if (header) map.set(name.toLowerCase(), { ...header, name, in: "header", $schemaOrigin: schemaOrigin(entry) });
  }
  return map;
}
