/**
 * The sandbox's request handling as a pipeline of named steps, each with one job, in the order `PIPELINE` gives:
 * a browser's preflight, routing, the caller's key, the body read within its limit, the API key required, the
 * body parsed and checked (media type, depth, JSON, string lengths, the contract), the parameters checked, and the
 * operation's handler run with its changes committed. A step ends the pipeline by setting `reply` (or `dropped`);
 * a SandboxProblem it throws becomes the problem document server.ts sends. Test mode is one wrapper around the
 * pipeline (test-mode.ts): it adds its own steps, never a hook inside these.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { EMPTY_BYTES, utf8Text } from "../../bytes.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../common/json-depth.ts";
import { requestWords } from "../../contract/issue-text.ts";
import type { ContractRouter, Issue, Operation, QueryValues } from "../../contract/router.ts";
import { ulidParameterNames } from "../../contract/router-over.ts";
import { callerKey } from "../accounts.ts";
import type { SandboxEngine } from "../engine.ts";
import { type AnyReply, type Call, SandboxProblem } from "../flows/flow.ts";
import type { Task } from "../flows/index.ts";
import { longStrings, MAX_STRING_LENGTH } from "../limits.ts";
import type { newAccountQuota } from "../origin-quota.ts";
import { StateNotSavedError } from "../store/errors.ts";
import type { Exchange, TestMode } from "../testmode/index.ts";
import type { AnswerTap, AnswerTarget } from "./answer.ts";
import { hasBody, pathAndQuery, readBody } from "./request.ts";

/** A handler as the server calls it: with what the router validated, answering any reply. */
export type RoutedHandler = (call: Call) => AnyReply | Promise<AnyReply>;

/** What every request's steps share: the contracts, the engine, the handlers, the quota of new accounts. */
export interface Front {
  readonly router: ContractRouter;
  readonly engine: SandboxEngine<Task>;
  readonly testMode: TestMode;
  readonly handlers: ReadonlyMap<Operation, RoutedHandler>;
  readonly newAccounts: ReturnType<typeof newAccountQuota>;
  /** The partner API's paths, which a 404 lists (the control API's are the dashboard's). */
  readonly partnerPaths: readonly string[];
}

/** The keys a 401 says the sandbox takes. */
const SANDBOX_KEYS = "any key (each key is a sandbox account of its own)";

/** One request on its way through the pipeline: what the steps have found so far. */
export class Pass implements AnswerTarget {
  /** The partner API's answers allow any origin; the control API's none (its requests are same-origin). */
  cors = true;
  pathname = "/";
  query: QueryValues | undefined;
  operation: Operation | undefined;
  pathParams: Record<string, string> = {};
  apiKey: string | undefined;
  raw: Uint8Array = EMPTY_BYTES;
  body: unknown;
  /** The parameters, validated (path, query, headers). */
  values: unknown;
  /** The answer: set by the step that ends the pipeline. */
  reply: AnyReply | undefined;
  /** True when the call is dropped, not answered (a fault that drops it). */
  dropped = false;
  tap: AnswerTap | undefined;
  /** The call as test mode follows it, once test mode has opened it. */
  exchange: Exchange | undefined;

  readonly request: IncomingMessage;
  readonly response: ServerResponse;

  constructor(request: IncomingMessage, response: ServerResponse) {
    this.request = request;
    this.response = response;
  }
}

export type Step = (pass: Pass, front: Front) => void | Promise<void>;

/** The path, the query, and which side (the control API's answers carry no CORS headers). */
export function target(pass: Pass): void {
  const { pathname, query } = pathAndQuery(pass.request.url ?? "/");
  pass.pathname = pathname;
  pass.query = query;
  pass.cors = !pathname.startsWith("/_sandbox");
}

/** A browser's preflight: answered for every path, before routing, as Prism does. */
export function preflight(pass: Pass): void {
  if (pass.request.method === "OPTIONS" && pass.request.headers["access-control-request-method"])
    pass.reply = { status: 204 };
}

/** The operation: 404 for a path no operation has, 405 (listing the path's methods) for a method it lacks. */
export function route(pass: Pass, front: Front): void {
  const match = front.router.match(pass.request.method ?? "GET", pass.pathname);
  if (match.kind === "no-path")
    throw new SandboxProblem(
      404,
      "no-such-path",
      "No such path",
      requestWords.noPath(pass.pathname, front.partnerPaths),
    );
  if (match.kind === "no-method") {
    // RFC 9110: a 405 lists the methods the path has.
    pass.response.setHeader("allow", match.methods.join(", "));
    throw new SandboxProblem(
      405,
      "no-such-method",
      "Method not allowed",
      requestWords.noMethod(match.path, String(pass.request.method), match.methods),
    );
  }
  pass.operation = match.operation;
  pass.pathParams = match.pathParams;
}

/** The caller: X-API-Key, or the account X-Sandbox-Account names by fingerprint (as the dashboard sends). */
export function identify(pass: Pass, front: Front): void {
  pass.apiKey = callerKey(pass.request.headers, front.engine);
}

/** The body's bytes, within the sandbox's limit; none to wait for when the request declares none. */
export function receive(pass: Pass): void | Promise<void> {
  if (!hasBody(pass.request)) return;
  return readBody(pass.request).then((raw) => {
    pass.raw = raw;
  });
}

/** 401 for an operation that needs an API key, called without one. */
export function authorize(pass: Pass): void {
  const operation = pass.operation!;
  if (operation.needsApiKey && pass.apiKey === undefined)
    throw new SandboxProblem(
      401,
      "missing-api-key",
      "Missing API key",
      requestWords.missingKey(operation.operationId, undefined, SANDBOX_KEYS),
    );
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

/** The body's media type: one the operation declares, else 415 (422 where the operation declares 422). */
function mediaTypeOf(pass: Pass): string {
  const operation = pass.operation!;
  const declared = operation.requestBody!;
  const mediaType = (pass.request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (declared.mediaTypes.has(mediaType)) return mediaType;
  throw new SandboxProblem(
    operation.responses.has(422) ? 422 : 415,
    "unsupported-media-type",
    "Unsupported media type",
    requestWords.mediaType(mediaType, [...declared.mediaTypes.keys()]),
  );
}

/** A form's fields, or JSON no deeper than the sandbox takes (422), well formed (400). */
function parsed(text: string, mediaType: string): unknown {
  if (mediaType === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text));
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw new SandboxProblem(422, "body-too-deep", "Body too deep", tooDeep, [
      { location: ["body"], message: tooDeep },
    ]);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SandboxProblem(
      400,
      "malformed-json",
      "Malformed JSON",
      `the body is not JSON: ${(error as Error).message}`,
    );
  }
}

/**
 * The body parsed and checked, then the parameters: the contract's issues of both in one 422 (the parameters'
 * first), a string too long refused on its own before the contract's rules are checked on megabytes.
 */
export function validate(pass: Pass, front: Front): void {
  const operation = pass.operation!;
  const issues: Issue[] = [];
  const declaredBody = operation.requestBody;
  if (declaredBody && pass.raw.length > 0) {
    const mediaType = mediaTypeOf(pass);
    pass.body = parsed(utf8Text(pass.raw), mediaType);
    const long = longStrings(pass.body, MAX_STRING_LENGTH);
    if (long.length > 0) throw invalidRequest(long);
    issues.push(...front.router.validateBody(operation, mediaType, pass.body));
  } else if (declaredBody?.required) {
    issues.push({ location: ["body"], message: "the request body is required" });
  }
  const { values, issues: parameterIssues } = front.router.validateParameters(operation, {
    path: pass.pathParams,
    query: pass.query!,
    headers: pass.request.headers,
  });
  if (parameterIssues.length > 0) issues.unshift(...parameterIssues);
  if (issues.length > 0) throw invalidRequest(issues);
  // A ULID in lower case is the same id (the standard reads either case); records hold them upper case.
  const params = values as Record<string, unknown>;
  for (const name of ulidParameterNames(front.router))
    if (typeof params[name] === "string") params[name] = (params[name] as string).toUpperCase();
  pass.values = values;
}

/**
 * The operation's handler, run on the engine; whatever it changed (an account seeded before a 404 too) is on disk
 * before the answer. A new account from another site's page counts against its origin's quota first. A call that
 * commits nothing and a handler that answers at once take no turn of the event loop.
 */
export function dispatch(pass: Pass, front: Front): void | Promise<void> {
  const { engine } = front;
  const { apiKey } = pass;
  const isNewAccount = apiKey !== undefined && !engine.hasAccount(apiKey);
  if (isNewAccount) front.newAccounts.admit(pass.request);
  const call = {
    env: engine,
    testMode: front.testMode,
    params: pass.values,
    body: pass.body,
    ...(apiKey !== undefined ? { apiKey } : {}),
  } as Call;
  const handler = front.handlers.get(pass.operation!)!;
  if (pass.request.method !== "GET" || isNewAccount) return committed(pass, front, () => handler(call));
  const answer = engine.hold(() => handler(call));
  if (!(answer instanceof Promise)) {
    pass.reply = answer;
    return;
  }
  return answer.then((reply) => {
    pass.reply = reply;
  });
}

/** A handler's call whose changes are committed before its answer (refused when a commit failed meanwhile). */
async function committed(pass: Pass, front: Front, handle: () => AnyReply | Promise<AnyReply>): Promise<void> {
  const { engine } = front;
  const undone = engine.store.undone;
  let reply: AnyReply;
  try {
    const answer = engine.hold(handle);
    reply = answer instanceof Promise ? await answer : answer;
  } finally {
    await engine.store.commit();
  }
  // Another request's commit failed while this one ran: the changes this one made were undone with it.
  if (engine.store.undone !== undone)
    throw new StateNotSavedError(
      "the change was not saved to the sandbox state file (a commit failed while it was made, and was undone with it); the sandbox holds what the file holds",
    );
  pass.reply = reply;
}

/** The order of the steps: the one place it is written. */
export const PIPELINE: readonly Step[] = [target, preflight, route, identify, receive, authorize, validate, dispatch];

/**
 * Runs the steps in order from `from` until one answers or drops the call. Synchronous until a step returns a
 * promise: the rest runs once it settles, so a call no step waits on takes no turn of the event loop.
 */
export function run(steps: readonly Step[], pass: Pass, front: Front, from = 0): void | Promise<void> {
  for (let index = from; index < steps.length; index++) {
    const pending = steps[index]!(pass, front);
    if (pending !== undefined)
      return pending.then(() =>
        pass.reply !== undefined || pass.dropped ? undefined : run(steps, pass, front, index + 1),
      );
    if (pass.reply !== undefined || pass.dropped) return;
  }
}
