/**
 * The mock's 4xx answers in a reader's words. Prism answers a request it refuses in its own terms ("Request body
 * property category must be equal to one of the allowed values", "must match \"then\" schema", a problem type at
 * stoplight.io), or with the operation's own 4xx example and its findings in an `sl-violations` header. The front
 * (mock-front.ts) hands each such answer here, with the request: the request is checked again with the sandbox's
 * router (contract/router.ts, whose issues issue-text.ts words: the field, the value received and what is allowed),
 * and the answer keeps Prism's status with a problem document in those words, as the sandbox's would be.
 */
import { requestWords, shown } from "./contract/issue-text.ts";
import { followRefs, isObject } from "./contract/refs.ts";
import type { ContractRouter, Issue, Operation } from "./contract/router.ts";

/** A problem document (RFC 9457) as the front sends it, and any header it needs (a 405's Allow). */
export interface WordedAnswer {
  status: number;
  contentType: string;
  body: {
    type: "about:blank";
    title: string;
    status: number;
    detail: string;
    validation?: Issue[];
  };
  headers?: Record<string, string>;
}

/** The request as the front read it. */
export interface ReadRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Prism's own problem types: every one is an answer of Prism's, not of the contract. */
const PRISM_PROBLEM = /^https:\/\/stoplight\.io\/prism\/errors#/;

/**
 * True when a 4xx from Prism is Prism's refusal rather than an answer the contract gives on purpose (an example
 * asked for with `Prefer: code=404`): a Prism problem type, its findings in `sl-violations`, or its JSON parser's
 * `invalid_json`.
 */
export function isPrismRefusal(status: number, headers: Record<string, unknown>, text: string): boolean {
  if (status < 400 || status > 499) return false;
  if (headers["sl-violations"] !== undefined) return true;
  try {
    const body = JSON.parse(text) as { type?: unknown; error?: { code?: unknown } } | null;
    return (
      (typeof body?.type === "string" && PRISM_PROBLEM.test(body.type)) ||
      (status === 400 && body?.error?.code === "invalid_json")
    );
  } catch {
    return false;
  }
}

function answer(status: number, title: string, detail: string, validation?: Issue[], declared?: string): WordedAnswer {
  return {
    status,
    // A status the operation declares answers in its declared media type (createCard's 422), as the sandbox does.
    contentType: declared?.includes("json") ? declared : "application/problem+json",
    body: { type: "about:blank", title, status, detail, ...(validation ? { validation } : {}) },
  };
}

function headerValue(headers: ReadRequest["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The issues of a routed request's parameters and body, as the sandbox finds them (server.ts), in its words. */
function requestIssues(
  router: ContractRouter,
  operation: Operation,
  request: ReadRequest,
  pathParams: Record<string, string>,
): Issue[] | WordedAnswer {
  const url = new URL(request.url, "http://mock.invalid");
  const issues: Issue[] = [];
  const declared = operation.requestBody;
  if (declared && request.body.length > 0) {
    const mediaType = (headerValue(request.headers, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!declared.mediaTypes.has(mediaType))
      return answer(415, "Unsupported media type", requestWords.mediaType(mediaType, [...declared.mediaTypes.keys()]));
    let body: unknown;
    try {
      body = JSON.parse(request.body.toString("utf8"));
    } catch (error) {
      return answer(400, "Malformed JSON", `the body is not JSON: ${(error as Error).message}`);
    }
    issues.push(...router.validateBody(operation, mediaType, body));
  } else if (declared?.required) {
    issues.push({ location: ["body"], message: "the request body is required and was not sent" });
  }
  const parameters = router.validateParameters(operation, {
    path: pathParams,
    query: url.searchParams,
    headers: request.headers,
  });
  return [...parameters.issues, ...issues];
}

/** The named examples of an operation's responses, each as `Prefer` names it (`example=bankTransfer`). */
function exampleNames(router: ContractRouter, operation: Operation): string[] {
  const document = router.documents.get(operation.api);
  const paths = isObject(document) && isObject(document.paths) ? document.paths : {};
  const item = followRefs<unknown>(document, paths[operation.path]);
  const declared = isObject(item) ? item[operation.method.toLowerCase()] : undefined;
  const names = new Set<string>();
  for (const raw of Object.values(isObject(declared) && isObject(declared.responses) ? declared.responses : {})) {
    const response = followRefs<unknown>(document, raw);
    const content = isObject(response) && isObject(response.content) ? response.content : {};
    for (const media of Object.values(content))
      if (isObject(media) && isObject(media.examples)) for (const name of Object.keys(media.examples)) names.add(name);
  }
  return [...names];
}

/** A `Prefer` header asking for a status or an example the operation does not document (Prism's 404). */
function preferAnswer(router: ContractRouter, operation: Operation, prefer: string): WordedAnswer {
  const codes = [...operation.responses.keys()].map((code) => `code=${code}`);
  const examples = exampleNames(router, operation).map((name) => `example=${name}`);
  return answer(
    404,
    "No such example",
    `${operation.operationId}: the Prefer header got ${shown(prefer)}; allowed: ${[...codes, ...examples].join(", ")}`,
  );
}

/**
 * The front's answer for a request Prism refused with `status`: Prism's status, the reason in words. Prism and
 * the router read the same contract; where the router finds nothing (a rule only Prism applies), the answer still
 * names what was sent where Prism pointed (`prismLocations`) without Prism's wording.
 */
export function wordedAnswer(
  router: ContractRouter,
  request: ReadRequest,
  status: number,
  prismLocations: string[][] = [],
): WordedAnswer {
  const url = new URL(request.url, "http://mock.invalid");
  const match = router.match(request.method, url.pathname);
  if (match.kind === "no-path") {
    const paths = router.operations.map((operation) => operation.path);
    return answer(404, "No such path", requestWords.noPath(url.pathname, paths));
  }
  if (match.kind === "no-method") {
    const worded = answer(405, "Method not allowed", requestWords.noMethod(match.path, request.method, match.methods));
    return { ...worded, headers: { allow: match.methods.join(", ") } };
  }
  const { operation } = match;
  if (status === 401 || (operation.needsApiKey && !headerValue(request.headers, "x-api-key")))
    return answer(
      401,
      "Missing API key",
      requestWords.missingKey(
        operation.operationId,
        headerValue(request.headers, "x-api-key"),
        "any non-empty key (the mock checks only that one is sent)",
      ),
    );
  if (status === 406)
    return answer(
      406,
      "Not acceptable",
      `the Accept header is ${shown(headerValue(request.headers, "accept"))}; allowed: one that takes ${[...new Set([...operation.responseMediaTypes.values()].flat())].join(" or ")}`,
    );
  const found = requestIssues(router, operation, request, match.pathParams);
  if (!Array.isArray(found)) return found;
  const prefer = headerValue(request.headers, "prefer");
  if (status === 404 && found.length === 0 && prefer) return preferAnswer(router, operation, prefer);
  const declared = operation.responses.get(status)?.mediaType;
  if (found.length > 0)
    return answer(status, "Invalid request", found.map((issue) => issue.message).join("; "), found, declared);
  const where = prismLocations.map((location) => location.join(" ")).join(", ") || "the request";
  return answer(
    status,
    "Invalid request",
    `the mock refused ${where} of ${operation.operationId}; see the operation's parameters and body in the reference`,
    undefined,
    declared,
  );
}

/** Where Prism's findings point (`["body", "category"]`), from its problem body or its `sl-violations` header. */
export function prismLocations(headers: Record<string, unknown>, text: string): string[][] {
  const read = (value: unknown): string[][] =>
    Array.isArray(value)
      ? value
          .map((item) => (item as { location?: unknown }).location)
          .filter((location): location is string[] => Array.isArray(location))
          .map((location) => location.filter((part) => part !== "request").map(String))
      : [];
  try {
    const header = headers["sl-violations"];
    if (typeof header === "string") return read(JSON.parse(header));
    return read((JSON.parse(text) as { validation?: unknown }).validation);
  } catch {
    return [];
  }
}
