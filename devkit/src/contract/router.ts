/**
 * Routing and request validation, built from bundled contracts (the partner API and the sandbox's control API)
 * and nothing else: paths, methods, parameters, security and request bodies; shared by the sandbox, `verify`
 * and `proxy`. Schemas are compiled with Ajv (JSON Schema 2020-12) the first time an operation is called, so
 * start-up stays fast.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { HTTP_METHODS } from "partner-api-client";
import { issueWords, rulePointer, shownErrors } from "./issue-text.ts";
import { followRefsFrom } from "./refs.ts";

type Json = { [key: string]: unknown };

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  pointer: string;
}

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  /** Which document the operation belongs to. */
  api: "partner" | "control";
  parameters: Parameter[];
  /** True when the operation needs the X-API-Key header. */
  needsApiKey: boolean;
  requestBody?: { required: boolean; mediaTypes: Map<string, string> };
  /** Declared response status → its media type and schema (undefined: no body). */
  responses: Map<number, { mediaType: string; pointer: string } | undefined>;
  /** Declared response status → every media type it declares (empty: no body). */
  responseMediaTypes: Map<number, string[]>;
  /** Declared response status → the headers it declares (as header parameters: name, requiredness, schema). */
  responseHeaders: Map<number, Parameter[]>;
}

export interface Issue {
  location: string[];
  message: string;
  /** The schema keyword that was broken, where it lives in the contract (e.g. `#/components/schemas/Ulid/pattern`). */
  rule?: string;
}

/** A webhook of the contract's `webhooks` map: what its delivery's body must be. */
export interface Webhook {
  type: string;
  operationId: string;
  /** Where the envelope's schema lives, for the validator. */
  pointer: string;
}

export type Match =
  | { kind: "operation"; operation: Operation; pathParams: Record<string, string> }
  | { kind: "no-path" }
  | { kind: "no-method"; path: string /** The methods the path has, for an Allow header. */; methods: string[] };

interface Route {
  pattern: RegExp;
  names: string[];
  path: string;
  methods: Map<string, Operation>;
}

/** A query string's values by name: a request's URLSearchParams, or none. */
export interface QueryValues {
  get(name: string): string | null;
}

/** How many segments a path has: a templated route matches only paths with as many as its own. */
function segmentCount(path: string): number {
  let count = 0;
  for (let index = path.indexOf("/"); index !== -1; index = path.indexOf("/", index + 1)) count++;
  return count;
}

function pointerSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isJson(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Follows local `$ref`s to the object they name (refs.ts), and tells where it lives. */
function resolve(document: Json, start: unknown): { value: Json; pointer?: string } {
  const { value, pointer } = followRefsFrom<unknown>(document, start, "");
  if (!isJson(value)) throw new Error(`${pointer || "a contract object"} is not an object`);
  return pointer === "" ? { value } : { value, pointer };
}

/** One router and validator over the partner contract and the control contract. */
export class ContractRouter {
  /** Every route: the literal ones first, then the templated ones in the contracts' order. */
  private readonly routes: Route[] = [];
  /** Routes without path parameters by their exact path, tried first, so `/a/b` never loses to `/a/{id}`. */
  private readonly literalRoutes = new Map<string, Route>();
  /** Templated routes by segment count, each list in the contracts' order. */
  private readonly templatedRoutes = new Map<number, Route[]>();
  /** Each parameter's coercing validator, compiled on its first use. */
  private readonly parameterValidators = new Map<Parameter, ValidateFunction>();
  // The documents are not checked against the JSON Schema meta-schema at start: `npm run lint` does that, and it
  // would cost most of the start-up time.
  // verbose: each error carries the value received and its schema, for the reader's words (issue-text.ts).
  private readonly ajv = new Ajv2020.default({ strict: false, allErrors: true, validateSchema: false, verbose: true });
  private readonly coercingAjv = new Ajv2020.default({
    strict: false,
    allErrors: true,
    verbose: true,
    coerceTypes: true,
    validateSchema: false,
  });
  private readonly validators = new Map<string, ValidateFunction>();
  /** The webhooks of the documents by event type. */
  readonly webhooks = new Map<string, Webhook>();
  /** The documents routed, by API (the sandbox answers an operation without a handler from its examples). */
  readonly documents = new Map<Operation["api"], Json>();

  constructor(documents: { api: Operation["api"]; document: Json }[]) {
    for (const ajv of [this.ajv, this.coercingAjv]) {
      addFormats.default(ajv);
      // OpenAPI's numeric formats only annotate the type; they constrain nothing.
      for (const format of ["int32", "int64", "float", "double"]) ajv.addFormat(format, true);
    }
    for (const { api, document } of documents) {
      this.documents.set(api, document);
      const source: Source = { api, document, id: `https://sandbox.invalid/${api}.json` };
      this.ajv.addSchema(document, source.id);
      this.coercingAjv.addSchema(document, source.id);
      for (const [path, rawItem] of Object.entries((document.paths ?? {}) as Json))
        this.addRoute(routeOf(source, path, rawItem));
      for (const webhook of webhooksOf(source)) this.webhooks.set(webhook.type, webhook);
    }
  }

  /** A path's route: literal paths first (and found by a map), templated ones by their segment count. */
  private addRoute(route: Route): void {
    if (route.names.length === 0) {
      this.routes.unshift(route);
      this.literalRoutes.set(route.path, route);
    } else {
      this.routes.push(route);
      const count = segmentCount(route.path);
      const sameLength = this.templatedRoutes.get(count);
      if (sameLength) sameLength.push(route);
      else this.templatedRoutes.set(count, [route]);
    }
  }

  get operations(): Operation[] {
    return this.routes.flatMap((route) => [...route.methods.values()]);
  }

  match(method: string, pathname: string): Match {
    const literal = this.literalRoutes.get(pathname);
    if (literal) return matched(literal, method, NO_PATH_PARAMS);
    for (const route of this.templatedRoutes.get(segmentCount(pathname)) ?? []) {
      const found = route.pattern.exec(pathname);
      if (!found) continue;
      const pathParams: Record<string, string> = {};
      for (let index = 0; index < route.names.length; index++)
        pathParams[route.names[index]!] = decodedSegment(found[index + 1]!);
      return matched(route, method, pathParams);
    }
    return { kind: "no-path" };
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: pointer });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  /**
   * Checks the parameters (path, query, header) and coerces path and query values to their schema's type;
   * returns the coerced values by name and every issue found.
   */
  validateParameters(
    operation: Operation,
    sources: {
      path: Record<string, string>;
      query: QueryValues;
      headers: Record<string, string | string[] | undefined>;
    },
  ): { values: Record<string, unknown>; issues: Issue[] } {
    const values: Record<string, unknown> = {};
    const issues: Issue[] = [];
    for (const parameter of operation.parameters) {
      let raw: unknown;
      if (parameter.in === "path") raw = sources.path[parameter.name];
      else if (parameter.in === "query") raw = sources.query.get(parameter.name) ?? undefined;
      else if (parameter.in === "header") {
        const header = sources.headers[parameter.name.toLowerCase()];
        raw = Array.isArray(header) ? header[0] : header;
      } else continue;
      if (raw === undefined) {
        if (parameter.required)
          issues.push({
            location: [parameter.in, parameter.name],
            message: `the ${parameter.in} parameter ${parameter.name} is required`,
          });
        continue;
      }
      // Ajv coerces in place only inside an object, so the value travels in a one-key holder.
      const holder = { value: raw };
      const wrapped = this.parameterValidator(parameter);
      if (!wrapped(holder)) {
        for (const error of shownErrors(wrapped.errors ?? []))
          issues.push({
            location: [parameter.in, parameter.name],
            message: `the ${parameter.in} parameter ${parameter.name} ${describe(error, "")}`,
          });
        continue;
      }
      const unheld = unheldNumber(raw, holder.value);
      if (unheld !== undefined) {
        issues.push({
          location: [parameter.in, parameter.name],
          message: `the ${parameter.in} parameter ${parameter.name} ${unheld}`,
        });
        continue;
      }
      values[parameter.name] = holder.value;
    }
    return { values, issues };
  }

  private parameterValidator(parameter: Parameter): ValidateFunction {
    let validate = this.parameterValidators.get(parameter);
    if (!validate) {
      validate = this.coercingAjv.compile({ type: "object", properties: { value: { $ref: parameter.pointer } } });
      this.parameterValidators.set(parameter, validate);
    }
    return validate;
  }

  /** Checks a parsed request body against the schema of its media type. */
  validateBody(operation: Operation, mediaType: string, body: unknown): Issue[] {
    const pointer = operation.requestBody?.mediaTypes.get(mediaType);
    if (!pointer) return [];
    const validate = this.validator(pointer);
    if (validate(body)) return [];
    return shownErrors(validate.errors ?? []).map((error) => ({
      location: ["body", ...error.instancePath.split("/").filter(Boolean)],
      message: `body${error.instancePath} ${describe(error, "")}`,
      rule: rulePointer(error.schemaPath),
    }));
  }

  /** Checks a response body against the schema the contract declares for its status (for tests). */
  validateResponse(operation: Operation, status: number, body: unknown): Issue[] {
    if (!operation.responses.has(status))
      return [{ location: ["status"], message: `status ${status} is not declared` }];
    const declared = operation.responses.get(status);
    if (declared === undefined) return [];
    const validate = this.validator(declared.pointer);
    if (validate(body)) return [];
    return shownErrors(validate.errors ?? []).map((error) => ({
      location: ["response", error.instancePath],
      message: describe(error, ""),
      rule: rulePointer(error.schemaPath),
    }));
  }

  /**
   * Checks a response's headers against those the contract declares for its status: each required one present,
   * each present one valid (its text coerced to the schema's type first, as for parameters).
   */
  validateResponseHeaders(
    operation: Operation,
    status: number,
    headers: { get(name: string): string | null },
  ): Issue[] {
    const issues: Issue[] = [];
    for (const header of operation.responseHeaders.get(status) ?? []) {
      const raw = headers.get(header.name);
      if (raw === null) {
        if (header.required)
          issues.push({ location: ["header", header.name], message: `the response header ${header.name} is required` });
        continue;
      }
      const wrapped = this.parameterValidator(header);
      if (wrapped({ value: raw })) continue;
      for (const error of shownErrors(wrapped.errors ?? []))
        issues.push({
          location: ["header", header.name],
          message: `the response header ${header.name} ${describe(error, "")}`,
          rule: rulePointer(error.schemaPath),
        });
    }
    return issues;
  }

  /** Checks a webhook delivery's parsed body against its event type's envelope schema; undefined for an unknown type. */
  validateWebhook(type: string, body: unknown): Issue[] | undefined {
    const webhook = this.webhooks.get(type);
    if (!webhook) return undefined;
    const validate = this.validator(webhook.pointer);
    if (validate(body)) return [];
    return shownErrors(validate.errors ?? []).map((error) => ({
      location: ["body", ...error.instancePath.split("/").filter(Boolean)],
      message: `body${error.instancePath} ${describe(error, "")}`,
      rule: rulePointer(error.schemaPath),
    }));
  }
}

/** A document being routed: its API and the id its schemas are added to Ajv under. */
interface Source {
  api: Operation["api"];
  document: Json;
  id: string;
}

/** A path's pattern: each `{name}` a segment captured (its name pushed to `names`), the rest literal. */
function pathPattern(path: string, names: string[]): RegExp {
  return new RegExp(
    `^${path
      .split("/")
      .map((segment) =>
        segment.replace(/\{([^}]+)\}|[^{}]+/g, (part, name?: string) => {
          if (name) {
            names.push(name);
            return "([^/]+)";
          }
          return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
        }),
      )
      .join("/")}$`,
  );
}

/** A path item's route, with each of its methods' operation. */
function routeOf(source: Source, path: string, rawItem: unknown): Route {
  const item = resolve(source.document, rawItem).value;
  const names: string[] = [];
  const route: Route = { pattern: pathPattern(path, names), names, path, methods: new Map() };
  for (const method of HTTP_METHODS) {
    const op = item[method] as Json | undefined;
    if (op) route.methods.set(method.toUpperCase(), operationOf(source, path, item, method, op));
  }
  return route;
}

/** One operation: its parameters (the path item's, then its own), security, request body and responses. */
function operationOf(source: Source, path: string, item: Json, method: string, op: Json): Operation {
  const { document, id, api } = source;
  const opPointer = `${id}#/paths/${pointerSegment(path)}/${method}`;
  const parameters: Parameter[] = [
    ...((item.parameters ?? []) as Json[]).map(
      (p, i) => [p, `${id}#/paths/${pointerSegment(path)}/parameters/${i}`] as const,
    ),
    ...((op.parameters ?? []) as Json[]).map((p, i) => [p, `${opPointer}/parameters/${i}`] as const),
  ].map(([raw, at]) => {
    const { value, pointer } = resolve(document, raw);
    return {
      name: String(value.name),
      in: value.in as Parameter["in"],
      required: value.required === true,
      pointer: `${pointer ? `${id}${pointer}` : at}/schema`,
    };
  });
  const security = (op.security ?? document.security ?? []) as Json[];
  const resolvedBody = op.requestBody ? resolve(document, op.requestBody) : undefined;
  const body = resolvedBody?.value;
  const bodyAt = resolvedBody?.pointer ? `${id}${resolvedBody.pointer}` : `${opPointer}/requestBody`;
  return {
    operationId: String(op.operationId),
    method: method.toUpperCase(),
    path,
    api,
    parameters,
    needsApiKey: security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0),
    requestBody: body
      ? {
          required: body.required === true,
          mediaTypes: new Map(
            Object.keys((body.content ?? {}) as Json).map((mediaType) => [
              mediaType,
              `${bodyAt}/content/${pointerSegment(mediaType)}/schema`,
            ]),
          ),
        }
      : undefined,
    ...responsesOf(source, op, opPointer),
  };
}

/** An operation's responses by status: the first media type's schema, every media type, and the headers. */
function responsesOf(
  source: Source,
  op: Json,
  opPointer: string,
): Pick<Operation, "responses" | "responseMediaTypes" | "responseHeaders"> {
  const { document, id } = source;
  const responses: Operation["responses"] = new Map();
  const responseMediaTypes: Operation["responseMediaTypes"] = new Map();
  const responseHeaders: Operation["responseHeaders"] = new Map();
  for (const [status, raw] of Object.entries((op.responses ?? {}) as Json)) {
    const { value: response, pointer } = resolve(document, raw);
    const mediaTypes = Object.keys((response.content ?? {}) as Json);
    const mediaType = mediaTypes[0];
    const at = pointer ? `${id}${pointer}` : `${opPointer}/responses/${status}`;
    responses.set(
      Number(status),
      mediaType ? { mediaType, pointer: `${at}/content/${pointerSegment(mediaType)}/schema` } : undefined,
    );
    responseMediaTypes.set(Number(status), mediaTypes);
    responseHeaders.set(
      Number(status),
      Object.entries((response.headers ?? {}) as Json).map(([name, rawHeader]) => {
        const header = resolve(document, rawHeader);
        const headerAt = header.pointer ? `${id}${header.pointer}` : `${at}/headers/${pointerSegment(name)}`;
        return { name, in: "header" as const, required: header.value.required === true, pointer: `${headerAt}/schema` };
      }),
    );
  }
  return { responses, responseMediaTypes, responseHeaders };
}

/** The document's webhooks, each with its payload schema's pointer. */
function webhooksOf(source: Source): Webhook[] {
  const { document, id } = source;
  const webhooks: Webhook[] = [];
  for (const [type, rawItem] of Object.entries((document.webhooks ?? {}) as Json)) {
    const post = resolve(document, rawItem).value.post as Json | undefined;
    if (!post?.requestBody) continue;
    const body = resolve(document, post.requestBody);
    const at = body.pointer ? `${id}${body.pointer}` : `${id}#/webhooks/${pointerSegment(type)}/post/requestBody`;
    const mediaType = Object.keys((body.value.content ?? {}) as Json)[0] ?? "application/json";
    webhooks.push({
      type,
      operationId: String(post.operationId),
      pointer: `${at}/content/${pointerSegment(mediaType)}/schema`,
    });
  }
  return webhooks;
}

const NO_PATH_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** A path segment decoded; one whose escapes decode to nothing (`%`, `%E0%A4%A`) stays as sent, for its schema to refuse. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function matched(route: Route, method: string, pathParams: Record<string, string>): Match {
  const operation = route.methods.get(method) ?? route.methods.get(method.toUpperCase());
  if (!operation) return { kind: "no-method", path: route.path, methods: [...route.methods.keys()] };
  return { kind: "operation", operation, pathParams };
}

function describe(error: ErrorObject, prefix: string): string {
  return `${prefix}${issueWords(error) ?? "is not allowed"}`;
}

/**
 * Why a parameter's text, coerced to a number, does not stand for the number written, or undefined when it does:
 * `Infinity` or `1e400` (no JSON number, so no answer could echo it), or a whole number past 2^53 - 1
 * (9007199254740993 reads as …992). Refused with its name rather than served as another number.
 */
export function unheldNumber(raw: unknown, value: unknown): string | undefined {
  if (typeof raw !== "string" || typeof value !== "number") return undefined;
  const shown = JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
  if (!Number.isFinite(value)) return `must be a finite number, got ${shown}`;
  if (Number.isInteger(value) && !Number.isSafeInteger(value))
    return `must be a whole number from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} (the largest the sandbox holds exactly), got ${shown}`;
  return undefined;
}
