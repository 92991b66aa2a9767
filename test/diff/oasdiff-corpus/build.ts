/**
 * Builders for the corpus's documents: small OpenAPI documents of our own, each pair making the change one oasdiff
 * checker test makes (its fixtures are read for what they change, never copied). A pair is declared with the test
 * it reproduces: `from(file)(test, asserts, base, revision)`.
 */
import type { Level } from "../../../scripts/lib/diff/checks/define.ts";
import { OASDIFF_SOURCE, type OasdiffId } from "../../../scripts/lib/diff/oasdiff-rules.ts";
import type { CorpusPair, Judgment } from "../../../scripts/lib/diff/parity.ts";

/** Documents are built freely; the gate reads them as JSON. */
export type Doc = any;

/** A document with these paths (and anything else at its top: components, webhooks, security). */
export function api(paths: Doc, extra: Doc = {}, openapi = "3.1.0"): Doc {
  return { openapi, info: { title: "Pets", version: "1.0.0" }, paths, ...extra };
}

export const OK = { "200": { description: "OK" } };

/** `POST /pets` whose request body (JSON unless `media` says) has this schema. */
export function requestBody(
  schema: Doc,
  options: { required?: boolean; media?: string; openapi?: string; extra?: Doc } = {},
): Doc {
  const body: Doc = { content: { [options.media ?? "application/json"]: { schema } } };
  if (options.required !== undefined) body.required = options.required;
  return api(
    { "/pets": { post: { operationId: "addPet", requestBody: body, responses: OK } } },
    options.extra,
    options.openapi,
  );
}

/** `GET /pets` whose response (200 and JSON unless told) has this schema. */
export function responseBody(
  schema: Doc,
  options: { status?: string; media?: string; openapi?: string; headers?: Doc; extra?: Doc } = {},
): Doc {
  const response: Doc = { description: "OK", content: { [options.media ?? "application/json"]: { schema } } };
  if (options.headers) response.headers = options.headers;
  return api(
    { "/pets": { get: { operationId: "listPets", responses: { [options.status ?? "200"]: response } } } },
    options.extra,
    options.openapi,
  );
}

/** `GET /pets/{petId}` (a path parameter, always) with these other parameters. */
export function parameters(list: Doc[], options: { openapi?: string; extra?: Doc } = {}): Doc {
  return api(
    {
      "/pets/{petId}": {
        get: {
          operationId: "getPet",
          parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }, ...list],
          responses: OK,
        },
      },
    },
    options.extra,
    options.openapi,
  );
}

/** A query parameter of `GET /pets/{petId}` with this schema (and other fields). */
export const query = (name: string, schema: Doc, more: Doc = {}): Doc => ({ name, in: "query", schema, ...more });

/** `GET /pets` answering 200 with these response headers. */
export function responseHeaders(headers: Doc, openapi?: string): Doc {
  return api(
    { "/pets": { get: { operationId: "listPets", responses: { "200": { description: "OK", headers } } } } },
    {},
    openapi,
  );
}

/** An object schema. */
export const object = (properties: Doc, required?: string[], more: Doc = {}): Doc => ({
  type: "object",
  properties,
  ...(required ? { required } : {}),
  ...more,
});

/** A copy of `doc` changed by `edit`: the revision of a base. */
export function edit(doc: Doc, change: (copy: Doc) => void): Doc {
  const copy = structuredClone(doc);
  change(copy);
  return copy;
}

export interface Asserts {
  ids: readonly OasdiffId[];
  asserts: "every" | "one";
  until: Level;
}

/** The test runs one check (or looks for these ids among others), at level info unless told. */
export const one = (ids: readonly OasdiffId[], until: Level = "info"): Asserts => ({ ids, asserts: "one", until });
/** The test runs every check and asserts exactly these ids (none: no change at all), at level info unless told. */
export const every = (ids: readonly OasdiffId[], until: Level = "info"): Asserts => ({ ids, asserts: "every", until });
/** `CheckBackwardCompatibility(allChecksConfig(), …)`: every check, warnings and errors only. */
export const breaking = (ids: readonly OasdiffId[]): Asserts => every(ids, "warning");

/** Declares the pairs of one oasdiff test file. */
export function from(file: string) {
  return (
    test: string,
    asserts: Asserts,
    base: Doc,
    revision: Doc,
    options: { judgment?: Judgment } = {},
  ): CorpusPair => ({
    test,
    file: `checker/${file}`,
    commit: OASDIFF_SOURCE.commit,
    ...asserts,
    base,
    revision,
    ...options,
  });
}

/** `POST /products` with a request body of several media types: `{ "text/plain": schema, … }`. */
export function requestMedia(schemas: Record<string, Doc>): Doc {
  const content = Object.fromEntries(Object.entries(schemas).map(([media, schema]) => [media, { schema }]));
  return api({ "/products": { post: { operationId: "addProduct", requestBody: { content }, responses: OK } } });
}

/** `POST /groups` answering each status with these media types: `{ "200": { "application/json": schema } }`. */
export function responseMedia(statuses: Record<string, Record<string, Doc>>): Doc {
  const responses = Object.fromEntries(
    Object.entries(statuses).map(([status, schemas]) => [
      status,
      {
        description: "An answer",
        content: Object.fromEntries(Object.entries(schemas).map(([media, schema]) => [media, { schema }])),
      },
    ]),
  );
  return api({ "/groups": { post: { operationId: "createGroup", responses } } });
}
