/**
 * HTTP in front of the engine: every request is routed and validated from the contracts (contract.ts), then
 * handed to its operation's handler; a change is on disk (with a state file) before its response is sent.
 * Invalid requests get the status codes `npm run mock` (Prism) gives them: 404 for an unknown path, 405 for
 * an unknown method, 401 without X-API-Key, 400 for malformed JSON, 415 (422 where the operation declares 422)
 * for a wrong content type, 422 for a bad parameter or body. What the sandbox takes beyond the contract's
 * rules (limits.ts) is refused before anything changes: 413 for a body over 1 MiB (Prism's limit is 10 MB),
 * 422 for JSON nested too deep or a string too long.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { concatBytes, EMPTY_BYTES, utf8Length, utf8Text } from "../bytes.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../common/json-depth.ts";
import { requestWords } from "../contract/issue-text.ts";
import type { ContractRouter, Issue, Operation, QueryValues } from "../contract/router.ts";
import { ulidParameterNames } from "../contract/router-over.ts";
import { callerKey } from "./accounts.ts";
import { answerText } from "./answer-text.ts";
import type { SandboxEngine } from "./engine.ts";
import { exampleHandler } from "./example-answers.ts";
import { type AnyReply, type Call, SandboxProblem } from "./flows/flow.ts";
import { CONTROL_HANDLERS, PARTNER_HANDLERS, type Task } from "./flows/index.ts";
import { HOSTED_PAGE_POLICY } from "./hosted.ts";
import { longStrings, MAX_BODY_BYTES, MAX_STRING_LENGTH } from "./limits.ts";
import { newAccountQuota } from "./origin-quota.ts";
import { StateNotSavedError } from "./store/errors.ts";
import { type Exchange, type TestMode, UNANSWERED } from "./testmode/index.ts";

export { MAX_BODY_BYTES };

/**
 * The partner API, as Prism: any origin may call, so a browser app in development can use the sandbox too. The
 * control API answers only its own origin (boundary.ts), so its answers carry no CORS headers.
 */
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "*",
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-expose-headers": "*",
};
const BASE_HEADERS = { "x-content-type-options": "nosniff" };
const PROBLEM_TYPE_BASE = "https://sandbox.partner-api.invalid/problems/";
/** The keys a 401 says the sandbox takes. (A 404 lists the partner API's paths: the control API's are the dashboard's.) */
const SANDBOX_KEYS = "any key (each key is a sandbox account of its own)";

/** The response headers for each side and content type, built once: writeHead only reads them. */
const headersByContentType = new Map<string, OutgoingHttpHeaders>();
function headersFor(cors: boolean, contentType?: string): OutgoingHttpHeaders {
  const key = `${cors}|${contentType ?? ""}`;
  let headers = headersByContentType.get(key);
  if (!headers) {
    headers = { ...BASE_HEADERS, ...(cors ? CORS_HEADERS : {}) };
    if (contentType !== undefined) headers["content-type"] = contentType;
    if (contentType === "text/event-stream; charset=utf-8") {
      headers["cache-control"] = "no-cache";
      headers["x-accel-buffering"] = "no";
    }
    // The hosted pages: nothing but their own style runs or loads.
    if (contentType?.startsWith("text/html")) headers["content-security-policy"] = HOSTED_PAGE_POLICY;
    // Frozen: each answer spreads it with its length, and V8 (Node 20) copies a frozen object's properties into a
    // new one several times faster than a plain one's (docs/design/sandbox-throughput.md).
    headersByContentType.set(key, Object.freeze(headers));
  }
  return headers;
}

const NO_QUERY: QueryValues = { get: () => null };
/**
 * A request target whose path `new URL` would return unchanged: no dot segments, percent-escapes, backslashes
 * or leading `//`, and no fragment. Anything else goes through `new URL`, so both give the same path and query.
 */
const PLAIN_TARGET = /^\/(?!\/)[\w\-~/]*(?:\?[^#]*)?$/;

function pathAndQuery(target: string): { pathname: string; query: QueryValues } {
  if (PLAIN_TARGET.test(target)) {
    const mark = target.indexOf("?");
    if (mark === -1) return { pathname: target, query: NO_QUERY };
    return { pathname: target.slice(0, mark), query: new URLSearchParams(target.slice(mark + 1)) };
  }
  const url = new URL(target, "http://sandbox.invalid");
  return { pathname: url.pathname, query: url.searchParams };
}

/** A request that declares no body (no Content-Length, no Transfer-Encoding) has none to read. */
function hasBody(request: IncomingMessage): boolean {
  return request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined;
}

const bodyTooLarge = () =>
  new SandboxProblem(
    413,
    "body-too-large",
    "Body too large",
    `the body is over ${MAX_BODY_BYTES} bytes (1 MiB), the largest the sandbox takes`,
  );

/** The request's stream failed: its sender went away mid-body, or broke its chunking. Nobody is left to answer. */
class RequestGone extends Error {
  override readonly name = "RequestGone";
}

function readBody(request: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // A declared length over the limit is refused without reading it (what is sent is drained).
    if (Number(request.headers["content-length"]) > MAX_BODY_BYTES) {
      reject(bodyTooLarge());
      request.resume();
      return;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    request.on("data", (chunk: Uint8Array) => {
      if (size > MAX_BODY_BYTES) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        reject(bodyTooLarge());
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(concatBytes(chunks)));
    request.on("error", (error) => reject(new RequestGone(error.message)));
  });
}

function send(
  response: ServerResponse,
  cors: boolean,
  operation: Operation | undefined,
  reply: AnyReply,
  exchange?: Exchange,
): void {
  if (reply.stream) {
    response.writeHead(reply.status, headersFor(cors, "text/event-stream; charset=utf-8"));
    response.flushHeaders();
    reply.stream(response);
    return;
  }
  let headers: OutgoingHttpHeaders = headersFor(cors);
  let text: string | undefined;
  if (reply.html !== undefined) {
    headers = headersFor(cors, "text/html; charset=utf-8");
    text = reply.html;
  } else if (reply.body !== undefined) {
    // A status the operation declares answers in its declared media type; any other is a problem document.
    const declared = operation?.responses.get(reply.status)?.mediaType;
    const contentType = declared?.includes("json")
      ? declared
      : reply.status >= 400
        ? "application/problem+json"
        : "application/json";
    headers = headersFor(cors, contentType);
    text = answerText(reply.body);
  }
  if (reply.headers) headers = { ...headers, ...reply.headers };
  if (exchange) text = exchange.answer(reply.status, headers, text);
  // Its length declared, so the answer goes out in one write, not chunked; the text is encoded as it is written.
  response.writeHead(reply.status, { ...headers, "content-length": text === undefined ? 0 : utf8Length(text) });
  response.end(text);
}

function problemReply(error: SandboxProblem): AnyReply {
  return {
    status: error.status,
    body: {
      type: PROBLEM_TYPE_BASE + error.kind,
      title: error.title,
      status: error.status,
      detail: error.message,
      ...(error.validation ? { validation: error.validation } : {}),
    },
    ...(error.headers ? { headers: error.headers } : {}),
  };
}

const tooDeep = `the body nests deeper than ${MAX_JSON_DEPTH} levels, the deepest the sandbox takes`;

function invalidRequest(issues: Issue[]): SandboxProblem {
  return new SandboxProblem(
    422,
    "invalid-request",
    "Invalid request",
    issues.map((issue) => issue.message).join("; "),
    issues,
  );
}

/** A handler as the server calls it: with what the router validated, answering any reply. */
type RoutedHandler = (call: Call) => AnyReply | Promise<AnyReply>;

/**
 * Each operation's handler, from the flows' typed maps by operationId; a handler of the other API never
 * answers an operation of one (the partner's and the control API's are looked up apart). One without a handler
 * answers its contract example, marked as such.
 */
function handlersByOperation(router: ContractRouter): Map<Operation, RoutedHandler> {
  // Typed per operation in the flows; here they are looked up by the name the router found.
  const maps = { partner: PARTNER_HANDLERS, control: CONTROL_HANDLERS } as Record<
    Operation["api"],
    Record<string, RoutedHandler>
  >;
  const byOperation = new Map<Operation, RoutedHandler>();
  for (const operation of router.operations) {
    const handlers = maps[operation.api];
    // An operation no flow handles yet is answered from the contract's examples (example-answers.ts).
    byOperation.set(
      operation,
      Object.hasOwn(handlers, operation.operationId)
        ? handlers[operation.operationId]!
        : exampleHandler(router.documents.get(operation.api), operation),
    );
  }
  return byOperation;
}

export function createRequestListener(router: ContractRouter, engine: SandboxEngine<Task>, testMode: TestMode) {
  const handlers = handlersByOperation(router);
  // New accounts from other sites' pages, bounded per origin on the sandbox's clock (origin-quota.ts).
  const newAccounts = newAccountQuota(() => engine.clock.now());
  const partnerPaths = router.operations.filter((known) => known.api === "partner").map((known) => known.path);
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    let operation: Operation | undefined;
    let exchange: Exchange | undefined;
    // The partner API's answers allow any origin; the control API's none (its requests are same-origin).
    let cors = true;
    try {
      const { pathname, query } = pathAndQuery(request.url ?? "/");
      cors = !pathname.startsWith("/_sandbox");
      // A browser's preflight: answered for every path, before routing, as Prism does.
      if (request.method === "OPTIONS" && request.headers["access-control-request-method"]) {
        send(response, cors, undefined, { status: 204 });
        return;
      }
      exchange = testMode.open(request);
      const match = router.match(request.method ?? "GET", pathname);
      if (match.kind === "no-path")
        throw new SandboxProblem(404, "no-such-path", "No such path", requestWords.noPath(pathname, partnerPaths));
      if (match.kind === "no-method") {
        // RFC 9110: a 405 lists the methods the path has.
        response.setHeader("allow", match.methods.join(", "));
        throw new SandboxProblem(
          405,
          "no-such-method",
          "Method not allowed",
          requestWords.noMethod(match.path, String(request.method), match.methods),
        );
      }
      operation = match.operation;
      exchange.routed(operation);
      // X-API-Key, or the account X-Sandbox-Account names by fingerprint (as the dashboard sends).
      const apiKey = callerKey(request.headers, engine);

      const raw = hasBody(request) ? await readBody(request) : EMPTY_BYTES;
      exchange.received(raw);
      // A fault answers for the call (or drops it) before anything else, as a failing service would.
      const striking = exchange.strike(response);
      const struck = striking === undefined ? undefined : await striking;
      if (struck === UNANSWERED) return;
      if (struck) {
        const problem = problemReply(new SandboxProblem(struck.status, "fault", "Fault", struck.detail));
        send(
          response,
          cors,
          operation,
          { ...problem, body: struck.body ?? problem.body, headers: struck.headers },
          exchange,
        );
        return;
      }
      if (operation.needsApiKey && apiKey === undefined)
        throw new SandboxProblem(
          401,
          "missing-api-key",
          "Missing API key",
          requestWords.missingKey(operation.operationId, undefined, SANDBOX_KEYS),
        );
      let body: unknown;
      const issues: Issue[] = [];
      const declaredBody = operation.requestBody;
      if (declaredBody && raw.length > 0) {
        const mediaType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
        if (!declaredBody.mediaTypes.has(mediaType)) {
          const status = operation.responses.has(422) ? 422 : 415;
          throw new SandboxProblem(
            status,
            "unsupported-media-type",
            "Unsupported media type",
            requestWords.mediaType(mediaType, [...declaredBody.mediaTypes.keys()]),
          );
        }
        const text = utf8Text(raw);
        if (mediaType === "application/x-www-form-urlencoded") body = Object.fromEntries(new URLSearchParams(text));
        else {
          if (nestsDeeperThan(text, MAX_JSON_DEPTH))
            throw new SandboxProblem(422, "body-too-deep", "Body too deep", tooDeep, [
              { location: ["body"], message: tooDeep },
            ]);
          try {
            body = JSON.parse(text);
          } catch (error) {
            throw new SandboxProblem(
              400,
              "malformed-json",
              "Malformed JSON",
              `the body is not JSON: ${(error as Error).message}`,
            );
          }
        }
        // A string too long is refused on its own: the contract's rules are not worth checking on megabytes.
        const long = longStrings(body, MAX_STRING_LENGTH);
        if (long.length > 0) throw invalidRequest(long);
        issues.push(...router.validateBody(operation, mediaType, body));
      } else if (declaredBody?.required) {
        issues.push({ location: ["body"], message: "the request body is required" });
      }
      const { values, issues: parameterIssues } = router.validateParameters(operation, {
        path: match.pathParams,
        query,
        headers: request.headers,
      });
      if (parameterIssues.length > 0) issues.unshift(...parameterIssues);
      if (issues.length > 0) throw invalidRequest(issues);
      // A ULID in lower case is the same id (the standard reads either case); records hold them upper case.
      const params = values as Record<string, unknown>;
      for (const name of ulidParameterNames(router))
        if (typeof params[name] === "string") params[name] = (params[name] as string).toUpperCase();

      const isNewAccount = apiKey !== undefined && !engine.hasAccount(apiKey);
      if (isNewAccount) newAccounts.admit(request);
      const call = { env: engine, testMode, params: values, body, ...(apiKey !== undefined ? { apiKey } : {}) } as Call;
      let reply: AnyReply;
      const undone = engine.store.undone;
      const commits = request.method !== "GET" || isNewAccount;
      try {
        const handler = handlers.get(operation)!;
        const answer = engine.hold(() => handler(call));
        reply = answer instanceof Promise ? await answer : answer;
      } finally {
        // Whatever the handler changed (an account seeded before a 404 too) is on disk before the answer.
        if (commits) await engine.store.commit();
      }
      // Another request's commit failed while this one ran: the changes this one made were undone with it.
      if (commits && engine.store.undone !== undone)
        throw new StateNotSavedError(
          "the change was not saved to the sandbox state file (a commit failed while it was made, and was undone with it); the sandbox holds what the file holds",
        );
      send(response, cors, operation, reply, exchange);
    } catch (error) {
      // Dropped, not answered: an error of the sender's, not a 500 of the sandbox's in its log.
      if (error instanceof RequestGone) response.destroy();
      else if (error instanceof SandboxProblem) send(response, cors, operation, problemReply(error), exchange);
      else if (error instanceof StateNotSavedError)
        send(
          response,
          cors,
          operation,
          problemReply(new SandboxProblem(503, "not-saved", "Change not saved", error.message)),
          exchange,
        );
      else {
        send(
          response,
          cors,
          undefined,
          problemReply(new SandboxProblem(500, "internal", "Sandbox error", (error as Error).message)),
          exchange,
        );
      }
    }
  };
}
