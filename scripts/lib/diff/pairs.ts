/**
 * The pairs the walk yields: the same place in the base and the head document, one side missing when it was
 * added or removed. Detectors (checks/) judge them; they never walk. Also the few helpers both sides use.
 */
import { followRefs } from "partner-api-devkit/cli";
import { type Document, isObject, type Json, type JsonObject, type SchemaNode, type SchemaView } from "./resolve.ts";

export type { Document };

/** The whole documents: info, top-level keys. */
export interface DocumentPair {
  base: Document;
  head: Document;
}

/** A `servers` list (the document's, a path item's or an operation's). */
export interface ServersPair {
  place: string;
  before?: Json;
  after?: Json;
}

/** A security scheme component. */
export interface SchemePair {
  name: string;
  place: string;
  before?: JsonObject;
  after?: JsonObject;
}

/** A path item or a webhook, matched by its template (parameter names blanked). */
export interface ItemPair {
  what: "path" | "webhook";
  /** The template or webhook name as the head writes it (the base's when removed). */
  name: string;
  /** `/items` or `webhook item.created`. */
  label: string;
  before?: JsonObject;
  after?: JsonObject;
  /** The operations of the side that exists alone (removed: the base's), by method. */
  ops: Map<string, JsonObject>;
  /** Where each of those operations is reported (`DELETE /items/{id}`). */
  where: (method: string) => string;
  today: string;
}

/** One operation of a path item or webhook present on at least one side. */
export interface OperationPair {
  what: "path" | "webhook";
  where: string;
  before?: JsonObject;
  after?: JsonObject;
  today: string;
}

/** An operation's effective security requirements (its own, else the document's). */
export interface SecurityPair {
  where: string;
  before?: Json;
  after?: Json;
}

export interface Parameter {
  parameter: JsonObject;
  /** Shown in messages and locations: `query limit`, `path {id}`, `header X-Total`. */
  label: string;
  /** A parameter referenced from components keeps that pointer, so its schema changes are located there. */
  origin?: string;
}

/** A parameter of an operation, or a header of a response. */
export interface ParameterPair {
  /** The operation (or operation and response) it belongs to. */
  where: string;
  place: string;
  before?: Parameter;
  after?: Parameter;
  /** A response header (the partner reads it), not a request parameter. */
  header: boolean;
  base: Document;
  head: Document;
  today: string;
}

/** A request body (or, for a webhook, the partner's answer's body). */
export interface BodyPair {
  place: string;
  before?: JsonObject;
  after?: JsonObject;
}

/** A media type of a body or response, matched by name (parameters and case aside) or as a renamed range. */
export interface MediaPair {
  place: string;
  /** The head's media type name (the base's when removed). */
  type: string;
  /** The base's name, when the media type is in both. */
  old?: string;
  /** Matched as a wider or narrower range (`application/json` ↔ `application/*`), not by name. */
  renamed: boolean;
  /** Whether a structured syntax suffix counts as a narrower type (what a response promises). */
  suffixes: boolean;
  before?: JsonObject;
  after?: JsonObject;
}

/** The responses of an operation, by status code (the head's spelling when in both), `$ref`s followed. */
export interface ResponsesPair {
  where: string;
  statuses: { status: string; before?: JsonObject; after?: JsonObject }[];
}

/** Where a schema sits in a message: what oasdiff's rules distinguish, and how its values travel. */
export interface SchemaContext {
  /** A parameter's schema, a response header's, or a body's (a media type's). */
  in: "parameter" | "header" | "body";
  /** The parameter's, header's or body's own schema, not a property or item inside it. */
  top: boolean;
  /**
   * Values travel as text, so that any of them also reads as a string: a parameter, a header, a body whose
   * media type is not JSON (oasdiff's "not strongly typed").
   */
  textual: boolean;
}

/** The links of one response (an operation's), by name, `$ref`s followed. */
export interface LinksPair {
  /** The response: `GET /cards/{cardId} response 200`. */
  place: string;
  before: Map<string, JsonObject>;
  after: Map<string, JsonObject>;
}

/** One schema in both documents, viewed with `$ref`s followed and allOf merged. */
export interface SchemaPair {
  a: SchemaView;
  b: SchemaView;
  context: SchemaContext;
  /** Where the head's schema is. */
  here: string;
  /** Whether two schemas differ in anything but documentation (in the current direction). */
  differs(before: SchemaNode, after: SchemaNode): boolean;
}

/** A property of an object schema present on at least one side. */
export interface PropertyPair {
  name: string;
  /** The parent schemas. */
  a: SchemaView;
  b: SchemaView;
  before?: SchemaNode;
  after?: SchemaNode;
  /** The property's own views (readOnly, writeOnly), when present. */
  viewBefore?: SchemaView;
  viewAfter?: SchemaView;
  /** Why the reader ignores this property (read-only in a request, write-only in a response), if it does. */
  ignored?: string;
  /** Whether it was or is deprecated with its sunset passed (it may go). */
  mayGo: boolean;
}

export interface Pairs {
  document: DocumentPair;
  servers: ServersPair;
  scheme: SchemePair;
  item: ItemPair;
  operation: OperationPair;
  security: SecurityPair;
  parameter: ParameterPair;
  body: BodyPair;
  media: MediaPair;
  responses: ResponsesPair;
  links: LinksPair;
  schema: SchemaPair;
  property: PropertyPair;
}
export type PairKind = keyof Pairs;
/** A pair tagged with its kind, so a detector on several kinds can switch on `pair.on`. */
export type PairOf<K extends PairKind> = { [P in K]: Pairs[P] & { on: P } }[K];

/** Resolves a `$ref`ed object (path item, parameter, response, request body) in its own document. */
export function deref(document: Document, value: Json | undefined): JsonObject | undefined {
  let target: Json | undefined;
  try {
    target = followRefs(document, value);
  } catch {
    return undefined; // A $ref loop that never reaches an object describes nothing (every $ref resolves: load.ts).
  }
  return isObject(target) ? target : undefined;
}

export const code = (value: Json | undefined) => `\`${value === undefined ? "none" : JSON.stringify(value)}\``;

/** A JSON value with its keys sorted: two values are equal when their `stable` strings are. */
export const stable = (value: Json | undefined): string => JSON.stringify(sortKeys(value ?? null));
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

/** Is this date (YYYY-MM-DD, or an RFC 3339 date-time) valid? Returns its day, else undefined. */
export function sunsetDay(value: Json | undefined): string | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value.trim());
  if (!match || Number.isNaN(Date.parse(`${match[0]}T00:00:00Z`))) return undefined;
  return match[0];
}

/** x-stability-level values, least stable first. */
export const STABILITY = ["draft", "alpha", "beta", "stable"];

/** Set when an operation is draft or alpha (`x-stability-level`): it may change freely. */
export function unstableNote(op: JsonObject): string | undefined {
  const level = op["x-stability-level"];
  return level === "draft" || level === "alpha" ? `x-stability-level ${level}: may change` : undefined;
}

/** `true`, `{}` and a missing keyword all allow anything. */
export const allowsAny = (node?: SchemaNode) =>
  !node || node.schema === true || (isObject(node.schema) && Object.keys(node.schema).length === 0);
