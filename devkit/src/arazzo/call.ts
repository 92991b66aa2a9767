/**
 * One call of a run: the step's request built from its parameters and body (expressions filled in), sent over the
 * run's fetch within its time bound, and the answer read within its byte bounds and kept (secrets masked).
 */
import type { Operation } from "../contract/router.ts";
import { type ArazzoParameter, type ArazzoStep, WorkflowError } from "./document.ts";
import { pointerTokens, valueAt } from "./expressions.ts";
import type { EndedWorkflows, Exchange, Fetch, Frame, RunLimits, RunOptions, StepCall } from "./run-types.ts";
import { fillValue, frameScope } from "./scope.ts";

/** What a call reads and adds to of its run: the options and bounds, the calls made, the bytes kept. */
export interface CallSite {
  readonly options: RunOptions;
  readonly limits: RunLimits;
  readonly fetch: Fetch;
  readonly calls: StepCall[];
  readonly done: EndedWorkflows;
  kept: number;
}

/** A step's request, built: where it goes, what it sends, and what `$request…` reads of it. */
interface Request {
  pathParams: Map<string, string>;
  query: URLSearchParams;
  headers: Map<string, string>;
  /** The path with its parameters filled in, and the query string. */
  target: string;
  url: string;
  requestBody: unknown;
  sent: string | undefined;
}

const SECRET_HEADERS = new Set(["x-api-key", "authorization", "cookie"]);
const isJsonType = (contentType: string) => /[/+]json\b/i.test(contentType);

/** Builds the step's request, sends it, reads the answer within bounds, and keeps both. */
export async function callStep(run: CallSite, frame: Frame, step: ArazzoStep, where: string): Promise<Exchange> {
  const operation = frame.resolved.operations.get(step)!;
  if (run.calls.length >= run.limits.maxCalls)
    throw new WorkflowError(`${where}: the run made ${run.limits.maxCalls} calls, the most a run makes`);
  run.options.signal?.throwIfAborted();
  const request = buildRequest(run, frame, step, operation, where);
  const { pathParams, query, headers, target, url, requestBody, sent } = request;
  const timeout = AbortSignal.timeout(run.limits.callTimeoutMs);
  const signal = run.options.signal ? AbortSignal.any([run.options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await run.fetch(
      url,
      {
        method: operation.method,
        headers: Object.fromEntries(headers),
        ...(sent !== undefined ? { body: sent } : {}),
        signal,
      },
      {
        workflowId: frame.workflow.workflowId,
        stepId: step.stepId,
        operationId: operation.operationId,
        api: operation.api,
      },
    );
  } catch (error) {
    if (run.options.signal?.aborted) throw error;
    const reason = timeout.aborted
      ? `no answer within ${run.limits.callTimeoutMs} ms`
      : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
    throw new WorkflowError(`${where}: ${operation.method} ${url} failed: ${reason}`);
  }
  const text = await readBounded(response, run.limits.maxAnswerBytes, where);
  const contentType = response.headers.get("content-type") ?? "";
  let body: unknown = text === "" ? undefined : text;
  if (text !== "" && isJsonType(contentType)) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  run.kept += Buffer.byteLength(text) + (sent === undefined ? 0 : Buffer.byteLength(sent));
  if (run.kept > run.limits.maxKeptBytes)
    throw new WorkflowError(
      `${where}: the run's requests and answers passed ${run.limits.maxKeptBytes} bytes, the most a run keeps (this answer: ${Buffer.byteLength(text)} bytes); run fewer steps, or ask for smaller answers`,
    );
  const call: StepCall = {
    workflowId: frame.workflow.workflowId,
    stepId: step.stepId,
    operationId: operation.operationId,
    method: operation.method,
    path: target,
    url,
    request: {
      headers: Object.fromEntries(
        [...headers].map(([name, value]) => [name, SECRET_HEADERS.has(name) ? "(redacted)" : value]),
      ),
      ...(requestBody !== undefined ? { body: requestBody } : {}),
    },
    status: response.status,
    headers: Object.fromEntries(response.headers),
    ...(body !== undefined ? { body } : {}),
  };
  run.calls.push(call);
  run.options.onCall?.(call);
  return {
    url,
    method: operation.method,
    pathParams,
    query,
    requestHeaders: headers,
    requestBody,
    status: response.status,
    headers: response.headers,
    body,
  };
}

/** The step's request: parameters (the workflow's, then the step's) and body, their expressions filled in. */
function buildRequest(run: CallSite, frame: Frame, step: ArazzoStep, operation: Operation, where: string): Request {
  const scope = frameScope(frame, run.done);
  const parameters = mergedParameters(
    frame.resolved.parameterList(frame.workflow.parameters ?? [], where),
    frame.resolved.parameterList(step.parameters ?? [], where),
  );
  const pathParams = new Map<string, string>();
  const query = new URLSearchParams();
  const headers = new Map<string, string>();
  const cookies: string[] = [];
  for (const parameter of parameters) {
    const value = fillValue(parameter.value, scope, `${where}, parameter ${parameter.name}`);
    if (value === undefined || value === null) continue;
    const text = typeof value === "object" ? JSON.stringify(value) : String(value);
    if (parameter.in === "path") pathParams.set(parameter.name, text);
    else if (parameter.in === "query") query.append(parameter.name, text);
    else if (parameter.in === "header") headers.set(parameter.name.toLowerCase(), text);
    else if (parameter.in === "cookie") cookies.push(`${parameter.name}=${encodeURIComponent(text)}`);
  }
  if (cookies.length > 0) headers.set("cookie", cookies.join("; "));
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = pathParams.get(name);
    if (value === undefined)
      throw new WorkflowError(`${where}: the path parameter ${name} of ${operation.operationId} has no value`);
    return encodeURIComponent(value);
  });
  const target = `${path}${query.size > 0 ? `?${query}` : ""}`;
  let requestBody: unknown;
  let sent: string | undefined;
  if (step.requestBody) {
    const contentType = step.requestBody.contentType ?? defaultContentType(operation);
    requestBody = fillValue(step.requestBody.payload, scope, `${where}, requestBody`);
    for (const replacement of step.requestBody.replacements ?? [])
      requestBody = replaced(
        requestBody,
        pointerTokens(replacement.target),
        fillValue(replacement.value, scope, `${where}, requestBody replacement ${replacement.target}`),
        `${where}, requestBody replacement ${replacement.target}`,
      );
    sent = serialize(requestBody, contentType);
    if (!headers.has("content-type")) headers.set("content-type", contentType);
  }
  const source = frame.resolved.sourceOf.get(step);
  const base = ((source !== undefined ? run.options.servers?.[source] : undefined) ?? run.options.baseUrl).replace(
    /\/+$/,
    "",
  );
  return { pathParams, query, headers, target, url: `${base}${target}`, requestBody, sent };
}

/** The workflow's parameters with the step's over them (the same name and place: the step's wins). */
function mergedParameters(workflowLevel: ArazzoParameter[], stepLevel: ArazzoParameter[]): ArazzoParameter[] {
  const key = (parameter: ArazzoParameter) =>
    `${parameter.in}:${parameter.in === "header" ? parameter.name.toLowerCase() : parameter.name}`;
  const merged = new Map<string, ArazzoParameter>();
  for (const parameter of [...workflowLevel, ...stepLevel])
    if (parameter.in !== undefined) merged.set(key(parameter), parameter);
  return [...merged.values()];
}

/** The media type a body goes in when the step names none: the operation's JSON one, else its first. */
function defaultContentType(operation: Operation): string {
  const types = [...(operation.requestBody?.mediaTypes.keys() ?? [])];
  return types.find(isJsonType) ?? types[0] ?? "application/json";
}

function serialize(body: unknown, contentType: string): string {
  if (typeof body === "string") return body;
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType) && body !== null && typeof body === "object") {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body))
      form.append(name, typeof value === "object" ? JSON.stringify(value) : String(value));
    return form.toString();
  }
  return JSON.stringify(body ?? null);
}

/** A copy of `body` with `value` set at `tokens`; the place's parent must exist. */
function replaced(body: unknown, tokens: string[], value: unknown, where: string): unknown {
  if (tokens.length === 0) return value;
  const copy = structuredClone(body);
  const parent = valueAt(copy, tokens.slice(0, -1));
  const last = tokens.at(-1)!;
  if (Array.isArray(parent) && /^(0|[1-9]\d*|-)$/.test(last)) {
    if (last === "-") parent.push(value);
    else parent[Number(last)] = value;
  } else if (parent !== null && typeof parent === "object" && !Array.isArray(parent))
    Object.defineProperty(parent, last, { value, enumerable: true, writable: true, configurable: true });
  else throw new WorkflowError(`${where}: the payload has no object or array at /${tokens.slice(0, -1).join("/")}`);
  return copy;
}

/** An answer's text, reading at most `max` bytes; more is an error naming the step and the bound. */
async function readBounded(response: Response, max: number, where: string): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  const tooLarge = () =>
    new WorkflowError(
      `${where}: the answer is over ${max} bytes, the most a run reads of one answer; ask for less (a smaller limit)`,
    );
  if (declared > max) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
