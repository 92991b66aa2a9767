/**
 * The document: info, servers, documentation keywords everywhere, vendor extensions and keywords the gate does
 * not model. Documentation-only checks make a patch release.
 */
import { code, stable, sunsetDay } from "../pairs.ts";
import { DOC_KEYWORDS, isObject, type Json, type JsonObject, locationOf, type SchemaView } from "../resolve.ts";
import { defineFamily, flow, type Out, one } from "./define.ts";
import { SCHEMA_KEYWORDS } from "./schema-keywords/keyword.ts";

const family = defineFamily("document", import.meta.url, {
  "version-changed": one("document", "info.version changed", "info", [], { documentation: true }),
  "openapi-version-changed": one("document", "OpenAPI version changed", "info"),
  "server-removed": one("document", "Server removed", "info"),
  "server-added": one("document", "Server added", "info"),
  "server-changed": one("document", "Server variables changed", "info"),
  "schema-component-removed": one("document", "Schema component removed (nothing that remains refers to it)", "info", [
    "api-schema-removed",
  ]),
  "extension-changed": flow("Vendor extension (x-) changed", ["info", "info"], {}, { documentation: true }),
  "documentation-changed": flow(
    "Documentation changed (description, summary, examples, …)",
    ["info", "info"],
    {},
    { documentation: true },
  ),
  "keyword-changed": flow("Keyword the gate does not model changed (may break; cannot be decided)", [
    "warning",
    "warning",
  ]),
});
export default family;

const TOP_LEVEL_KEYS = new Set([
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
/** Operation keys other detectors judge; any other key that changes is an extension or an unmodeled keyword. */
const OPERATION_KEYS = new Set([
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
const withoutDeprecated = [...DOC_KEYWORDS].filter((key) => key !== "deprecated");

/** Schema components removed: what refers to them is compared where it is; this says that they went. */
family.detector("components", ["document"], ["schema-component-removed"], ({ base, head }, out) => {
  const schemas = (document: JsonObject) => {
    const components = isObject(document.components) ? document.components : {};
    return isObject(components.schemas) ? components.schemas : {};
  };
  const after = schemas(head);
  for (const name of Object.keys(schemas(base)))
    if (!(name in after))
      out.emit("schema-component-removed", `#/components/schemas/${name}`, `schema component \`${name}\` removed`);
});

family.detector("info", ["document"], ["version-changed", "openapi-version-changed"], ({ base, head }, out) => {
  const before = isObject(base.info) ? base.info : {};
  const after = isObject(head.info) ? head.info : {};
  if (before.version !== after.version)
    out.emit("version-changed", "#/info/version", `version ${String(before.version)} → ${String(after.version)}`);
  if (base.openapi !== head.openapi)
    out.emit("openapi-version-changed", "#/openapi", `${code(base.openapi)} → ${code(head.openapi)}`);
});

function docKeys(
  out: Out<"documentation-changed">,
  place: string,
  before: JsonObject,
  after: JsonObject,
  keys: Iterable<string>,
): void {
  const changed = [...keys].filter((key) => stable(before[key]) !== stable(after[key]));
  if (changed.length > 0) out.emit("documentation-changed", place, `${changed.join(", ")} changed`);
}

function serverDocs(server: JsonObject): Json {
  const variables = isObject(server.variables) ? server.variables : {};
  return [
    server.description ?? null,
    Object.fromEntries(
      Object.entries(variables).map(([name, v]) => [name, isObject(v) ? (v.description ?? null) : null]),
    ),
  ];
}

function schemaDocs(a: SchemaView, b: SchemaView, out: Out<"documentation-changed">): void {
  for (const place of new Set([...a.docs.keys(), ...b.docs.keys()])) {
    docKeys(out, place, a.docs.get(place)?.values ?? {}, b.docs.get(place)?.values ?? {}, [
      ...new Set([...Object.keys(a.docs.get(place)?.values ?? {}), ...Object.keys(b.docs.get(place)?.values ?? {})]),
    ]);
  }
  // An allOf member holding only documentation adds no constraint.
  for (const [name, member] of b.allOf)
    if (!a.allOf.has(name) && member.annotationOnly)
      out.emit("documentation-changed", locationOf(b.node), `allOf member \`${name}\` added`);
  for (const [name, member] of a.allOf)
    if (!b.allOf.has(name) && member.annotationOnly)
      out.emit("documentation-changed", locationOf(b.node), `allOf member \`${name}\` removed`);
}

/**
 * Descriptions, summaries, examples, titles, `xml`, tags of the document: a patch release. The walk also
 * reports through it what a place makes documentation only (the default of a required parameter).
 */
export const docs = family.detector(
  "docs",
  ["document", "servers", "scheme", "item", "operation", "parameter", "body", "media", "responses", "schema"],
  ["documentation-changed"],
  (pair, out) => {
    switch (pair.on) {
      case "document": {
        const before = isObject(pair.base.info) ? pair.base.info : {};
        const after = isObject(pair.head.info) ? pair.head.info : {};
        const keys = new Set([...Object.keys(before), ...Object.keys(after)].filter((key) => key !== "version"));
        docKeys(out, "#/info", before, after, keys);
        docKeys(out, "#", pair.base, pair.head, ["tags", "externalDocs"]);
        return;
      }
      case "servers": {
        const after = servers(pair.after);
        for (const [url, server] of servers(pair.before)) {
          const match = after.get(url);
          if (match && stable(serverDocs(server)) !== stable(serverDocs(match)))
            out.emit("documentation-changed", `${pair.place} ${url}`, "server description changed");
        }
        return;
      }
      case "item":
        if (pair.before && pair.after) docKeys(out, pair.label, pair.before, pair.after, ["summary", "description"]);
        return;
      case "operation":
        if (!pair.before || !pair.after) return;
        if (pair.before.operationId === undefined && pair.after.operationId !== undefined)
          out.emit("documentation-changed", pair.where, `operationId ${code(pair.after.operationId)} added`);
        docKeys(out, pair.where, pair.before, pair.after, withoutDeprecated);
        return;
      case "parameter":
        if (!pair.before || !pair.after) return;
        if (pair.before.label !== pair.after.label)
          out.emit("documentation-changed", pair.place, `\`${pair.before.label}\` renamed to \`${pair.after.label}\``);
        docKeys(out, pair.after.origin ?? pair.place, pair.before.parameter, pair.after.parameter, withoutDeprecated);
        return;
      case "media":
        if (pair.before && pair.after)
          docKeys(out, `${pair.place} ${pair.type}`, pair.before, pair.after, DOC_KEYWORDS);
        return;
      case "responses":
        for (const { status, before, after } of pair.statuses)
          if (before && after) docKeys(out, `${pair.where} response ${status}`, before, after, DOC_KEYWORDS);
        return;
      case "schema":
        return schemaDocs(pair.a, pair.b, out);
      default:
        if (pair.before && pair.after) docKeys(out, pair.place, pair.before, pair.after, DOC_KEYWORDS);
    }
  },
);

/** A servers list by URL. */
export function servers(value: Json | undefined): Map<string, JsonObject> {
  return new Map((Array.isArray(value) ? value : []).filter(isObject).map((server) => [String(server.url), server]));
}

function variableValues(server: JsonObject): Json {
  const variables = isObject(server.variables) ? server.variables : {};
  return Object.fromEntries(
    Object.entries(variables).map(([name, v]) => [
      name,
      isObject(v) ? { default: v.default ?? null, enum: v.enum ?? null } : v,
    ]),
  );
}

family.detector(
  "servers",
  ["servers"],
  ["server-removed", "server-added", "server-changed"],
  ({ place, before, after }, out) => {
    const a = servers(before);
    const b = servers(after);
    for (const [url, server] of a) {
      const match = b.get(url);
      if (!match) out.emit("server-removed", `${place} ${url}`, `server \`${url}\` removed`);
      else if (stable(variableValues(server)) !== stable(variableValues(match)))
        out.emit("server-changed", `${place} ${url}`, `server \`${url}\` variables changed`);
    }
    for (const url of b.keys()) if (!a.has(url)) out.emit("server-added", `${place} ${url}`, `server \`${url}\` added`);
  },
);

function changedKeys(before: JsonObject, after: JsonObject, skip: (key: string) => boolean): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (key) => !skip(key) && stable(before[key]) !== stable(after[key]),
  );
}

/** x-sunset changed where the judgement of deprecation does not apply (not deprecated on both sides). */
function sunsetOutsideDeprecation(before: JsonObject, after: JsonObject): boolean {
  if (stable(before["x-sunset"]) === stable(after["x-sunset"])) return false;
  if (after["x-sunset"] !== undefined && !sunsetDay(after["x-sunset"])) return false;
  if (before.deprecated !== true || after.deprecated !== true) return true;
  return after["x-sunset"] !== undefined && !sunsetDay(before["x-sunset"]);
}

/** A vendor extension, or a keyword the gate has no check for: reported so nobody misses it. */
family.detector(
  "unmodeled",
  ["document", "operation", "parameter", "schema"],
  ["extension-changed", "keyword-changed"],
  (pair, out) => {
    const report = (key: string, where: string, message: string) =>
      out.emit(key.startsWith("x-") ? "extension-changed" : "keyword-changed", where, message);
    const sunset = (where: string, before: JsonObject, after: JsonObject) => {
      if (sunsetOutsideDeprecation(before, after))
        out.emit("extension-changed", where, `x-sunset ${code(before["x-sunset"])} → ${code(after["x-sunset"])}`);
    };
    switch (pair.on) {
      case "document":
        for (const key of changedKeys(pair.base, pair.head, (key) => TOP_LEVEL_KEYS.has(key)))
          report(key, `#/${key}`, `${key} changed`);
        return;
      case "operation":
        if (!pair.before || !pair.after) return;
        for (const key of changedKeys(pair.before, pair.after, (key) => OPERATION_KEYS.has(key)))
          report(key, pair.where, `${key} ${code(pair.before[key])} → ${code(pair.after[key])}`);
        return sunset(pair.where, pair.before, pair.after);
      case "parameter":
        if (pair.before && pair.after) sunset(pair.place, pair.before.parameter, pair.after.parameter);
        return;
      case "schema":
        for (const key of new Set([...pair.a.keywords.keys(), ...pair.b.keywords.keys()])) {
          const before = pair.a.keywords.get(key);
          const after = pair.b.keywords.get(key);
          if (before && after && stable(before.value) === stable(after.value)) continue;
          // x-stability-level on both sides is judged as a stability change.
          const stability = key === "x-stability-level" && before !== undefined && after !== undefined;
          if (SCHEMA_KEYWORDS.has(key) || key === "x-extensible-enum" || stability) continue;
          const where = locationOf((after ?? before)!.at);
          if (key.startsWith("x-"))
            out.emit(
              "extension-changed",
              where,
              `${key} ${before === undefined ? "added" : after === undefined ? "removed" : "changed"}`,
            );
          else
            out.emit(
              "keyword-changed",
              where,
              `${key} ${code(before?.value)} → ${code(after?.value)} (a keyword the gate does not model)`,
            );
        }
    }
  },
);
