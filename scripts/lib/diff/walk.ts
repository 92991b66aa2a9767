/**
 * The one walk over two documents: info, servers, security schemes, paths and webhooks, their operations,
 * parameters, bodies, media types and responses. Each place is handed as a pair to the detectors (checks/);
 * schemas go to schema-walk.ts with their direction: operation requests flow to the service, responses to the
 * partner; webhooks the other way round.
 */
import { HTTP_METHODS } from "partner-api-client";
import { type Change, ChangeSink, mergeChanges } from "./changes.ts";
import type { Flow } from "./checks/define.ts";
import { docs } from "./checks/document.ts";
import { serialization } from "./checks/parameters.ts";
import { covers, mediaBase, sameMedia } from "./checks/request-body.ts";
import { types } from "./checks/schema-keywords/types.ts";
import { withEquivalentsFolded } from "./equivalent.ts";
import { type Document, deref, type Parameter, stable, unstableNote } from "./pairs.ts";
import { isObject, type Json, type JsonObject } from "./resolve.ts";
import { compareHeaderSchemas, compareSchemas, judge, newComparison, type SchemaComparison } from "./schema-walk.ts";

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
  base = withEquivalentsFolded(base);
  head = withEquivalentsFolded(head);
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const walk: Walk = { cmp: newComparison(base, head, today), sink: new ChangeSink(), today };
  judge("document", { base, head }, "toPartner", walk.sink);
  judge("servers", { place: "#/servers", before: base.servers, after: head.servers }, "toService", walk.sink);
  const schemes = (document: Document) => {
    const components = isObject(document.components) ? document.components : {};
    return isObject(components.securitySchemes) ? components.securitySchemes : {};
  };
  const [a, b] = [schemes(base), schemes(head)];
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const [before, after] = [deref(base, a[name]), deref(head, b[name])];
    judge("scheme", { name, place: `#/components/securitySchemes/${name}`, before, after }, "toService", walk.sink);
  }
  compareItems(walk, "path", pathItems(base.paths), pathItems(head.paths));
  compareItems(walk, "webhook", pathItems(base.webhooks), pathItems(head.webhooks));
  return mergeChanges(walk.sink.changes);
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

function operationsOf(item: JsonObject | undefined): Map<string, JsonObject> {
  const map = new Map<string, JsonObject>();
  for (const method of HTTP_METHODS) if (isObject(item?.[method])) map.set(method, item[method] as JsonObject);
  return map;
}

function compareItems(walk: Walk, what: "path" | "webhook", before: Map<string, Item>, after: Map<string, Item>): void {
  const { base, head } = walk.cmp;
  const label = (name: string) => (what === "path" ? name : `webhook ${name}`);
  const where = (name: string) => (method: string) =>
    what === "path" ? `${method.toUpperCase()} ${name}` : `webhook ${name} ${method.toUpperCase()}`;
  const item = (name: string, x?: JsonObject, y?: JsonObject) =>
    judge(
      "item",
      {
        what,
        name,
        label: label(name),
        before: x,
        after: y,
        ops: operationsOf(y ? undefined : x),
        where: where(name),
        today: walk.today,
      },
      "toPartner",
      walk.sink,
    );
  for (const [key, { name, item: value }] of before) {
    const match = after.get(key);
    const a = deref(base, value) ?? {};
    if (!match) {
      item(name, a);
      continue;
    }
    const b = deref(head, match.item) ?? {};
    item(match.name, a, b);
    for (const method of HTTP_METHODS) {
      const opA = isObject(a[method]) ? (a[method] as JsonObject) : undefined;
      const opB = isObject(b[method]) ? (b[method] as JsonObject) : undefined;
      if (!opA && !opB) continue;
      const place = where(match.name)(method);
      const pair = { what, where: place, before: opA, after: opB, today: walk.today };
      if (!opA || !opB) {
        judge("operation", pair, "toPartner", walk.sink);
        continue;
      }
      const local: Walk = { ...walk, sink: new ChangeSink() };
      compareOperation(
        local,
        what,
        place,
        { item: a, op: opA, template: name },
        { item: b, op: opB, template: match.name },
      );
      walk.sink.addFrom(local.sink.changes, undefined, unstableNote(opA));
    }
    if (what === "path")
      judge("servers", { place: `${match.name} servers`, before: a.servers, after: b.servers }, "toService", walk.sink);
  }
  for (const [key, { name, item: value }] of after)
    if (!before.has(key)) item(name, undefined, deref(head, value) ?? {});
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
  judge("operation", { what, where, before: a.op, after: b.op, today: walk.today }, requestFlow, walk.sink);
  judge(
    "security",
    { where, before: a.op.security ?? base.security, after: b.op.security ?? head.security },
    requestFlow,
    walk.sink,
  );
  judge("servers", { place: `${where} servers`, before: a.op.servers, after: b.op.servers }, "toService", walk.sink);
  compareParameters(walk, where, requestFlow, parameters(base, a), parameters(head, b), false);
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

function links(document: Document, value: Json | undefined): Map<string, JsonObject> {
  const map = new Map<string, JsonObject>();
  for (const [name, entry] of Object.entries(isObject(value) ? value : {})) {
    const link = deref(document, entry);
    if (link) map.set(name, link);
  }
  return map;
}

const requiredBoth = (...sides: Parameter[]) =>
  sides.every(({ parameter }) => parameter.required === true || parameter.in === "path");

/**
 * A required parameter's default is never applied (every call sends the value): a change to it is documentation,
 * as oasdiff skips it (RequestParameterDefaultValueChangedCheck judges optional parameters only).
 */
function unusedDefault(change: Change): Change {
  if (change.kind !== "parameter-default-changed") return change;
  const message = `${change.message} (the default of a required parameter is never applied)`;
  return ChangeSink.change(docs, change.flow, "documentation-changed", change.location, message);
}

/** A parameter's schema: `schema`, or the schema of its one `content` entry. */
function parameterSchema(parameter: JsonObject): Json | undefined {
  if (parameter.schema !== undefined) return parameter.schema;
  const content = isObject(parameter.content) ? Object.values(parameter.content) : [];
  return content.find(isObject)?.schema;
}

/** A schema's types, `null` aside (undefined: any). */
function typesOf(schema: JsonObject | undefined): Set<string> | undefined {
  if (!schema || schema.type === undefined) return undefined;
  const list = Array.isArray(schema.type) ? schema.type.map(String) : [String(schema.type)];
  return new Set(list.filter((type) => type !== "null"));
}

/**
 * The items of a query or cookie parameter that went from one value to an array, form-style and exploded (the
 * default): `?token=a` is then a valid array of one, so the change is judged by what the items take.
 */
function scalarBecameArray(
  cmp: SchemaComparison,
  before: Parameter,
  after: Parameter,
  x: Json | undefined,
  y: Json | undefined,
): Json | undefined {
  const { style, explode } = serialization(after.parameter);
  if (style !== "form" || !explode || !["query", "cookie"].includes(String(after.parameter.in))) return undefined;
  if (stable(serialization(before.parameter)) !== stable({ style, explode })) return undefined;
  const was = typesOf(deref(cmp.base, x));
  const head = deref(cmp.head, y);
  const now = typesOf(head);
  if (!was || was.size === 0 || was.has("array") || now?.size !== 1 || !now.has("array")) return undefined;
  return head?.items !== undefined && !Array.isArray(head.items) ? head.items : undefined;
}

/**
 * JSON (`application/json`, `…+json`, and the JSON sequences `application/jsonl`, `application/x-ndjson`,
 * `application/json-seq`): a number and a string are told apart. Other media types carry text.
 */
export function isJsonMedia(type: string): boolean {
  const base = mediaBase(type);
  return (
    base === "application/json" ||
    base.endsWith("+json") ||
    ["application/jsonl", "application/x-ndjson", "application/json-seq"].includes(base)
  );
}

/** A parameter's values travel as text, unless it is a JSON `content` (`?filter={"a":1}`). */
function textualParameter(parameter: JsonObject): boolean {
  if (parameter.schema !== undefined || !isObject(parameter.content)) return true;
  return !Object.keys(parameter.content).some(isJsonMedia);
}

function compareParameters(
  walk: Walk,
  where: string,
  flow: Flow,
  a: Map<string, Parameter>,
  b: Map<string, Parameter>,
  header: boolean,
): void {
  const { base, head } = walk.cmp;
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const before = a.get(key);
    const after = b.get(key);
    const place = `${where} ${(after ?? before)!.label}`;
    const local = new ChangeSink();
    judge("parameter", { where, place, before, after, header, base, head, today: walk.today }, flow, local);
    walk.sink.addFrom(local.changes, where);
    if (!before || !after) continue;
    const schemaBefore = parameterSchema(before.parameter);
    const schemaAfter = parameterSchema(after.parameter);
    if (schemaBefore === undefined && schemaAfter === undefined) continue;
    const nodes = [
      { schema: schemaBefore ?? {}, origin: before.origin ? `${before.origin}/schema` : place, path: "" },
      { schema: schemaAfter ?? {}, origin: after.origin ? `${after.origin}/schema` : place, path: "" },
    ] as const;
    const values = requiredBoth(before, after) ? new ChangeSink(unusedDefault) : new ChangeSink();
    const items = header ? undefined : scalarBecameArray(walk.cmp, before, after, schemaBefore, schemaAfter);
    if (items !== undefined) {
      // `?token=a` is an array of one: what matters is whether the items take what the parameter took.
      const message = `\`${after.label}\` became an array (form, exploded: one value is an array of one)`;
      values.changes.push(
        ChangeSink.change(types, flow, "type-widened", nodes[1].origin, message, "request-parameter-type-generalized"),
      );
      compareSchemas(walk.cmp, nodes[0], { ...nodes[1], schema: items, path: "[]" }, flow, values, {
        in: "parameter",
        textual: true,
      });
      walk.sink.addFrom(values.changes, where);
      continue;
    }
    const root = {
      in: header ? "header" : "parameter",
      textual: textualParameter(before.parameter) && textualParameter(after.parameter),
    } as const;
    if (header && flow === "toPartner") compareHeaderSchemas(walk.cmp, nodes[0], nodes[1], flow, values);
    else compareSchemas(walk.cmp, nodes[0], nodes[1], flow, values, root);
    walk.sink.addFrom(values.changes, where);
  }
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
  judge("body", { place, before: a, after: b }, flow, walk.sink);
  if (a && b) compareContent(walk, place, flow, a.content, b.content, user);
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
  const media = (x: Json | undefined) => (isObject(x) ? x : {});
  for (const type of removed)
    if (!olds.has(type))
      judge("media", { place, type, renamed: false, suffixes, before: media(a[type]) }, flow, walk.sink);
  for (const [type, value] of Object.entries(b)) {
    const old = renamed.get(type) ?? match(type, a);
    const x = old === undefined ? undefined : media(a[old]);
    const y = media(value);
    judge("media", { place, type, old, renamed: renamed.has(type), suffixes, before: x, after: y }, flow, walk.sink);
    if (!x) continue;
    const where = `${place} ${type}`;
    for (const keyword of ["schema", "itemSchema"]) {
      // OpenAPI 3.2's itemSchema: the schema of each item of a sequential media type (application/jsonl, …).
      if (x[keyword] === undefined && y[keyword] === undefined) continue;
      // A schema on one side only is the media type's own change (media-schema-added/removed).
      if (keyword === "schema" && (x.schema === undefined || y.schema === undefined)) continue;
      const origin = keyword === "schema" ? where : `${where} itemSchema`;
      const local = new ChangeSink();
      compareSchemas(
        walk.cmp,
        { schema: x[keyword] ?? {}, origin, path: "" },
        { schema: y[keyword] ?? {}, origin, path: "" },
        flow,
        local,
        { in: "body", textual: !isJsonMedia(type) || !isJsonMedia(old ?? type) },
      );
      walk.sink.addFrom(local.changes, user);
    }
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
  const statuses = (value: Json | undefined) =>
    Object.entries(isObject(value) ? value : {}).filter(([key]) => !key.startsWith("x-"));
  const a = statuses(before);
  const b = statuses(after);
  const find = (status: string, list: [string, Json][]) =>
    list.find(([candidate]) => candidate.toUpperCase() === status.toUpperCase());
  const pairs: { status: string; before?: JsonObject; after?: JsonObject }[] = [
    ...a.filter(([status]) => !find(status, b)).map(([status, x]) => ({ status, before: deref(base, x) ?? {} })),
    ...b.map(([status, y]) => {
      const old = find(status, a);
      return { status, before: old ? (deref(base, old[1]) ?? {}) : undefined, after: deref(head, y) ?? {} };
    }),
  ];
  judge("responses", { where, statuses: pairs }, flow, walk.sink);
  for (const { status, before: x, after: y } of pairs) {
    if (!x || !y) continue;
    const place = `${where} response ${status}`;
    compareParameters(walk, place, flow, headers(base, x.headers), headers(head, y.headers), true);
    // Links lead from an operation's answer to the next call (a webhook's answer goes to the service).
    if (flow === "toPartner")
      judge("links", { place, before: links(base, x.links), after: links(head, y.links) }, flow, walk.sink);
    compareContent(walk, place, flow, x.content, y.content, where);
  }
}
