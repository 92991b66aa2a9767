/**
 * The registry test's base document and where each direction's kinds live (see test/diff/registry.test.ts).
 * A direction's `At` says where the kind lives for `request-…` ids (the request of POST /things, the partner's
 * answer to the webhook) and for `response-…` ids (the response of POST /things, the webhook's delivery).
 */
import type { Document } from "../../../scripts/lib/diff/resolve.ts";
import { compareDocuments } from "../../../scripts/lib/diff/walk.ts";

export type Any = any;

export const object = () => ({
  type: "object",
  required: ["r"],
  properties: {
    p: { type: "string", maxLength: 10 },
    r: { type: "string" },
    o: { type: "string" },
    n: { type: "integer", minimum: 0 },
    ro: { type: "string", readOnly: true },
    wo: { type: "string", writeOnly: true },
    list: { type: "array", items: { type: "string" } },
  },
});
export const json = (ref: string) => ({ "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } });

export function baseDocument(): Any {
  return {
    openapi: "3.1.0",
    info: { title: "Registry", version: "1.0.0" },
    servers: [{ url: "https://a.example", variables: {} }],
    security: [{ Key: [] }],
    paths: {
      "/things": {
        post: {
          operationId: "createThing",
          tags: ["things"],
          parameters: [
            { name: "q", in: "query", schema: { type: "string" } },
            { name: "q2", in: "query", schema: { type: "string" } },
          ],
          requestBody: { content: json("In") },
          responses: {
            "201": {
              description: "Created",
              headers: { "X-H": { schema: { type: "string" } }, "X-H2": { schema: { type: "string" } } },
              content: json("Out"),
            },
            "404": { description: "Not found" },
          },
        },
        get: {
          operationId: "listThings",
          security: [{ Key: [] }, { Bearer: [] }],
          responses: { "200": { description: "ok" } },
        },
      },
      "/old": {
        get: { responses: { "200": { description: "ok" } } },
        delete: { operationId: "deleteOld", responses: { "204": { description: "gone" } } },
      },
    },
    webhooks: {
      "thing.created": {
        post: {
          requestBody: { content: json("Event") },
          responses: { "200": { description: "ok" }, "410": { description: "unsubscribe" } },
        },
      },
    },
    components: {
      schemas: { In: object(), Out: object(), Event: object() },
      securitySchemes: {
        Key: { type: "apiKey", in: "header", name: "X-Key" },
        Bearer: { type: "http", scheme: "bearer" },
      },
    },
  };
}

/** Where a kind lives for one direction's ids. */
export interface At {
  obj(d: Any): Any;
  /** The property `name` of that object (`p` by default). */
  prop(d: Any, name?: string): Any;
  /** A property the reader ignores: read-only in a request, write-only in a response. */
  ignored: string;
  /** The first (`a`) or second (`b`) parameter (query in a request, header in a response). */
  param(d: Any, which?: "a" | "b"): Any;
  addParam(d: Any, name: string, param: Any): void;
  removeParam(d: Any, which?: "a" | "b"): void;
  /** The operation holding the body (its `requestBody`). */
  bodyOwner(d: Any): Any;
  /** A media type map. */
  content(d: Any): Any;
  responses(d: Any): Any;
  success: string;
  failure: string;
}

export const things = (d: Any) => d.paths["/things"].post;
export const webhook = (d: Any) => d.webhooks["thing.created"].post;
export const request: At = {
  obj: (d) => d.components.schemas.In,
  prop: (d, name = "p") => d.components.schemas.In.properties[name],
  ignored: "ro",
  param: (d, which = "a") => things(d).parameters[which === "a" ? 0 : 1],
  addParam: (d, name, param) => things(d).parameters.push({ name, in: "query", ...param }),
  removeParam: (d, which = "a") => things(d).parameters.splice(which === "a" ? 0 : 1, 1),
  bodyOwner: things,
  content: (d) => things(d).requestBody.content,
  responses: (d) => webhook(d).responses,
  success: "200",
  failure: "410",
};
export const response: At = {
  obj: (d) => d.components.schemas.Out,
  prop: (d, name = "p") => d.components.schemas.Out.properties[name],
  ignored: "wo",
  param: (d, which = "a") => things(d).responses["201"].headers[which === "a" ? "X-H" : "X-H2"],
  addParam: (d, name, param) => (things(d).responses["201"].headers[name] = param),
  removeParam: (d, which = "a") => delete things(d).responses["201"].headers[which === "a" ? "X-H" : "X-H2"],
  bodyOwner: webhook,
  content: (d) => things(d).responses["201"].content,
  responses: (d) => things(d).responses,
  success: "201",
  failure: "404",
};

export interface Fixture {
  setup?: (d: Any, at: At) => void;
  fire: (d: Any, at: At) => void;
  /** The compatible twin: the nearest change that must not report this check. */
  quiet: (d: Any, at: At) => void;
}

export function reported(fixture: Fixture, at: At, mutate: (d: Any, at: At) => void): string[] {
  const base = baseDocument();
  fixture.setup?.(base, at);
  const head = structuredClone(base);
  mutate(head, at);
  return compareDocuments(base as Document, head as Document, { today: "2026-06-01" }).map((change) => change.check);
}

/** Moves `map[from]` to `map[to]`. */
export const rename = (map: Any, from: string, to: string) => {
  map[to] = map[from];
  delete map[from];
};
