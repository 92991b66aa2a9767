/**
 * The Arazzo runner: runs a workflow of a checked document step by step over a `fetch` (a server's base URL, or the
 * sandbox's own HTTP handler in-process), filling parameters and bodies from inputs and earlier outputs, checking
 * each answer against its success criteria, following success and failure actions, and keeping every call's
 * request and answer. A run is bounded: calls, bytes read per answer, bytes kept in all, nesting, retries and waits;
 * past a bound it stops with a WorkflowError that names the bound.
 */
import type { Operation } from "../contract/router.ts";
import { type Catalogue, type CheckLimits, DEFAULT_CHECK_LIMITS, type ResolvedDocument } from "./check.ts";
import {
  type ArazzoCriterion,
  type ArazzoFailureAction,
  type ArazzoParameter,
  type ArazzoStep,
  type ArazzoSuccessAction,
  type ArazzoWorkflow,
  type FailedStep,
  WorkflowError,
} from "./document.ts";
import {
  type Expression,
  ExpressionError,
  type ExpressionScope,
  evaluateCondition,
  fillExpressions,
  parseCondition,
  pointerTokens,
  splitName,
  truthy,
  valueAt,
} from "./expressions.ts";

export interface RunLimits extends CheckLimits {
  /** Calls a run makes at most, retries and nested workflows included. */
  maxCalls: number;
  /** Bytes of one answer read at most. */
  maxAnswerBytes: number;
  /** Bytes of requests and answers a run keeps (and returns) in all. */
  maxKeptBytes: number;
  /** How deep workflows run workflows. */
  maxDepth: number;
  /** Real milliseconds one call may take. */
  callTimeoutMs: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = {
  ...DEFAULT_CHECK_LIMITS,
  maxCalls: 1000,
  maxAnswerBytes: 2 * 1024 * 1024,
  maxKeptBytes: 8 * 1024 * 1024,
  maxDepth: 8,
  callTimeoutMs: 30_000,
};

/** One call a run made: the step, the request (secrets masked) and the answer. */
export interface StepCall {
  workflowId: string;
  stepId: string;
  operationId: string;
  method: string;
  /** The path called, parameters filled in, with its query string. */
  path: string;
  url: string;
  request: { headers: Record<string, string>; body?: unknown };
  status: number;
  headers: Record<string, string>;
  /** The answer's body: parsed JSON, or text; absent when empty. */
  body?: unknown;
}

/** What a run did: each workflow that ended, with its outputs, and every call in order. */
export interface WorkflowRun {
  workflows: { workflowId: string; outputs: Record<string, unknown> }[];
  steps: StepCall[];
}

/** Which step a call is for, handed to the run's fetch with the request (a fetch may ignore it). */
export interface CallContext {
  workflowId: string;
  stepId: string;
  operationId: string;
  /** The API the operation belongs to: the partner API or the sandbox's control API. */
  api: Operation["api"];
}

/**
 * A fetch as the runner calls it: the global one, or one over the sandbox's handler, or a caller's that judges each
 * answer as it arrives (verify's). The third argument says which step the call is for.
 */
export type Fetch = (url: string, init: RequestInit, call: CallContext) => Promise<Response>;

/** Where and how a run calls: what `runArazzo` and the public `runWorkflow` take alike. */
export interface RunTarget {
  /** Inputs by name, given to every workflow the run starts (a step running a workflow passes its own too). */
  inputs?: Record<string, unknown>;
  /** Where every source's operations are called, e.g. http://127.0.0.1:4020. */
  baseUrl: string;
  /** A base URL per source description name (`partner`, `sandbox`), over `baseUrl`. */
  servers?: Record<string, string>;
  fetch?: Fetch;
  limits?: Partial<RunLimits>;
  signal?: AbortSignal;
  /** Told of each call once answered (progress). */
  onCall?: (call: StepCall) => void;
  /** Told of each workflow that ends, nested ones included, with its outputs (before any later step can fail). */
  onWorkflowEnd?: (workflow: { workflowId: string; outputs: Record<string, unknown> }) => void;
}

export interface RunOptions extends RunTarget {
  catalogue: Catalogue;
  /** The document, resolved (its issues make the run refuse to start). */
  document: ResolvedDocument;
  /** The workflow to run (with what it depends on); every workflow of the document in order when undefined. */
  workflowId?: string;
  /** Said after a required input is missing, to tell the caller how to give it. */
  missingInputHint?: (name: string) => string;
}

const SECRET_HEADERS = new Set(["x-api-key", "authorization", "cookie"]);
const isJsonType = (contentType: string) => /[/+]json\b/i.test(contentType);

/** Runs a workflow (or every workflow) of a resolved document; throws WorkflowError when a step fails or a bound is hit. */
export async function runArazzo(options: RunOptions): Promise<WorkflowRun> {
  options.document.orThrow();
  const run = new Run(options);
  const { document } = options;
  const ids = options.workflowId === undefined ? [...document.workflows.keys()] : [options.workflowId];
  for (const id of ids) {
    const workflow = document.workflows.get(id);
    if (!workflow)
      throw new WorkflowError(
        `${document.shownAs} has no workflow ${JSON.stringify(id)} (its workflows: ${[...document.workflows.keys()].join(", ")})`,
      );
    await run.once(document, workflow, 0);
  }
  return { workflows: run.finished, steps: run.calls };
}

/** What one workflow run holds while it runs: its inputs and its steps' outputs. */
interface Frame {
  resolved: ResolvedDocument;
  workflow: ArazzoWorkflow;
  inputs: Map<string, unknown>;
  steps: Map<string, Map<string, unknown>>;
}

/** The call under way, for `$statusCode`, `$response…`, `$request…`, `$url`, `$method`. */
interface Exchange {
  url: string;
  method: string;
  pathParams: Map<string, string>;
  query: URLSearchParams;
  requestHeaders: Map<string, string>;
  requestBody: unknown;
  status: number;
  headers: Headers;
  body: unknown;
}

class Run {
  readonly calls: StepCall[] = [];
  readonly finished: WorkflowRun["workflows"] = [];
  private readonly limits: RunLimits;
  private readonly fetch: Fetch;
  /** Outputs of each workflow that ended, by document and id, for `$workflows.<id>.outputs` and dependsOn. */
  private readonly done = new Map<ResolvedDocument, Map<string, Map<string, unknown>>>();
  private kept = 0;

  private readonly options: RunOptions;
  constructor(options: RunOptions) {
    this.options = options;
    this.limits = { ...DEFAULT_RUN_LIMITS, ...options.catalogue.limits, ...options.limits };
    this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
  }

  /** Runs a workflow unless it already ended in this run (as a dependency); its outputs. */
  async once(resolved: ResolvedDocument, workflow: ArazzoWorkflow, depth: number): Promise<Map<string, unknown>> {
    const before = this.done.get(resolved)?.get(workflow.workflowId);
    return before ?? this.workflow(resolved, workflow, new Map(Object.entries(this.options.inputs ?? {})), depth);
  }

  private async workflow(
    resolved: ResolvedDocument,
    workflow: ArazzoWorkflow,
    given: Map<string, unknown>,
    depth: number,
  ): Promise<Map<string, unknown>> {
    const id = workflow.workflowId;
    if (depth > this.limits.maxDepth)
      throw new WorkflowError(
        `workflow ${id}: workflows run workflows deeper than ${this.limits.maxDepth}, the most a run nests`,
      );
    for (const dependency of workflow.dependsOn ?? []) {
      const target = resolved.workflowOf(dependency)!;
      await this.once(target.resolved, target.workflow, depth + 1);
    }
    const frame: Frame = { resolved, workflow, inputs: this.inputs(resolved, workflow, given), steps: new Map() };
    const steps = workflow.steps;
    // Every step makes a call or runs a workflow that does, so maxCalls bounds any loop of gotos and retries.
    for (let index = 0; index < steps.length; ) {
      const step = steps[index]!;
      const next = await this.step(frame, step, depth);
      if (next.kind === "end") break;
      if (next.kind === "goto-step") index = steps.findIndex((candidate) => candidate.stepId === next.stepId);
      else if (next.kind === "goto-workflow") {
        await this.workflow(next.resolved, next.workflow, given, depth + 1);
        break;
      } else index++;
    }
    const outputs = new Map<string, unknown>();
    const scope = this.scope(frame);
    for (const [name, expression] of Object.entries(workflow.outputs ?? {})) {
      const value = optional(() => fillExpressions(expression, scope));
      if (value !== undefined) outputs.set(name, value);
    }
    const byId = this.done.get(resolved) ?? new Map<string, Map<string, unknown>>();
    byId.set(id, outputs);
    this.done.set(resolved, byId);
    const ended = { workflowId: id, outputs: Object.fromEntries(outputs) };
    this.finished.push(ended);
    this.options.onWorkflowEnd?.(ended);
    return outputs;
  }

  /** The inputs a workflow runs with: those given, then each declared default; a required one missing is an error. */
  private inputs(
    resolved: ResolvedDocument,
    workflow: ArazzoWorkflow,
    given: Map<string, unknown>,
  ): Map<string, unknown> {
    const inputs = new Map(given);
    const schema = resolved.inputsSchema(workflow);
    const properties = (schema?.properties ?? {}) as Record<string, { default?: unknown; type?: unknown }>;
    for (const [name, property] of Object.entries(properties))
      if (!inputs.has(name) && property !== null && typeof property === "object" && Object.hasOwn(property, "default"))
        inputs.set(name, property.default);
    const required = Array.isArray(schema?.required) ? (schema.required as unknown[]) : [];
    for (const name of required) {
      if (typeof name !== "string" || inputs.has(name)) continue;
      throw new WorkflowError(
        `workflow ${workflow.workflowId} needs the input ${name}${this.options.missingInputHint?.(name) ?? ""}`,
      );
    }
    for (const [name, property] of Object.entries(properties)) {
      const type = property?.type;
      if (!inputs.has(name) || typeof type !== "string") continue;
      const value = inputs.get(name);
      const actual = Array.isArray(value)
        ? "array"
        : value === null
          ? "null"
          : Number.isInteger(value)
            ? "integer"
            : typeof value;
      const fits = actual === type || (type === "number" && actual === "integer");
      if (!fits)
        throw new WorkflowError(`workflow ${workflow.workflowId}: the input ${name} must be ${type}, got ${actual}`);
    }
    return inputs;
  }

  /** Runs one step (with its retries); says what comes next. */
  private async step(
    frame: Frame,
    step: ArazzoStep,
    depth: number,
  ): Promise<
    | { kind: "next" | "end" }
    | { kind: "goto-step"; stepId: string }
    | { kind: "goto-workflow"; resolved: ResolvedDocument; workflow: ArazzoWorkflow }
  > {
    const where = `workflow ${frame.workflow.workflowId}, step ${step.stepId}`;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(frame, step, depth, where);
      const scope = this.scope(frame, outcome.exchange, outcome.childOutputs);
      if (outcome.ok) {
        const outputs = new Map<string, unknown>();
        for (const [name, expression] of Object.entries(step.outputs ?? {})) {
          const value = optional(() => fillExpressions(expression, scope));
          if (value !== undefined) outputs.set(name, value);
        }
        frame.steps.set(step.stepId, outputs);
        const actions = frame.resolved.actionList<ArazzoSuccessAction>(
          step.onSuccess ?? frame.workflow.successActions ?? [],
          "successActions",
          where,
        );
        const action = actions.find((candidate) => this.holds(candidate.criteria, scope));
        if (!action) return { kind: "next" };
        if (action.type === "end") return { kind: "end" };
        return this.goto(frame, action);
      }
      const actions = frame.resolved.actionList<ArazzoFailureAction>(
        step.onFailure ?? frame.workflow.failureActions ?? [],
        "failureActions",
        where,
      );
      let retried = false;
      for (const action of actions) {
        if (!this.holds(action.criteria, scope)) continue;
        if (action.type === "end") break;
        if (action.type === "goto") return this.goto(frame, action);
        if (attempt >= (action.retryLimit ?? 1)) continue;
        const after = retryAfterSeconds(action, outcome.exchange?.headers, this.limits.maxRetryAfterSeconds);
        await wait(after * 1000, this.options.signal);
        if (action.stepId !== undefined) {
          const target = frame.workflow.steps.find((candidate) => candidate.stepId === action.stepId)!;
          await this.step(frame, target, depth);
        } else if (action.workflowId !== undefined) {
          const target = frame.resolved.workflowOf(action.workflowId)!;
          await this.workflow(target.resolved, target.workflow, frame.inputs, depth + 1);
        }
        retried = true;
        break;
      }
      if (!retried) throw new WorkflowError(`${where} failed: ${outcome.why}`, outcome.failedStep);
    }
  }

  private goto(frame: Frame, action: ArazzoSuccessAction | ArazzoFailureAction) {
    if (action.stepId !== undefined) return { kind: "goto-step" as const, stepId: action.stepId };
    const target = frame.resolved.workflowOf(action.workflowId!)!;
    return { kind: "goto-workflow" as const, resolved: target.resolved, workflow: target.workflow };
  }

  /** One try of a step: its call (or its workflow), then its success criteria. */
  private async attempt(
    frame: Frame,
    step: ArazzoStep,
    depth: number,
    where: string,
  ): Promise<{
    ok: boolean;
    why: string;
    exchange?: Exchange;
    childOutputs?: Map<string, unknown>;
    failedStep?: FailedStep;
  }> {
    if (step.workflowId !== undefined) {
      const target = frame.resolved.workflowOf(step.workflowId)!;
      const scope = this.scope(frame);
      const inputs = new Map(Object.entries(this.options.inputs ?? {}));
      for (const parameter of frame.resolved.parameterList(step.parameters ?? [], where))
        inputs.set(parameter.name, this.fill(parameter.value, scope, `${where}, parameter ${parameter.name}`));
      try {
        const outputs = await this.workflow(target.resolved, target.workflow, inputs, depth + 1);
        return { ok: true, why: "", childOutputs: outputs };
      } catch (error) {
        if (!(error instanceof WorkflowError)) throw error;
        return { ok: false, why: error.message, ...(error.failedStep ? { failedStep: error.failedStep } : {}) };
      }
    }
    const exchange = await this.call(frame, step, where);
    const scope = this.scope(frame, exchange);
    const criteria = step.successCriteria ?? [];
    const failed = criteria.filter((criterion) => !this.holds([criterion], scope)).map((c) => c.condition);
    const ok = criteria.length > 0 ? failed.length === 0 : exchange.status >= 200 && exchange.status < 300;
    const why = `${failed.length > 0 ? failed.join(" and ") : "its answer is not a success (2xx)"} — it answered ${exchange.status}${describeAnswer(exchange.body)}`;
    if (ok) return { ok, why, exchange };
    const failedStep: FailedStep = {
      workflowId: frame.workflow.workflowId,
      stepId: step.stepId,
      operationId: frame.resolved.operations.get(step)!.operationId,
      status: exchange.status,
      criteria: criteria.length > 0 ? failed : ["$statusCode is 2xx (the step has no success criteria)"],
    };
    return { ok, why, exchange, failedStep };
  }

  /** True when every criterion holds (none: true). */
  private holds(criteria: readonly ArazzoCriterion[] | undefined, scope: ExpressionScope): boolean {
    return (criteria ?? []).every((criterion) => truthy(evaluateCondition(parseCondition(criterion.condition), scope)));
  }

  /** A value with its expressions filled in; one that names nothing is an error naming the step and the value. */
  private fill(value: unknown, scope: ExpressionScope, where: string): unknown {
    try {
      return fillExpressions(value, scope);
    } catch (error) {
      if (error instanceof ExpressionError) throw new WorkflowError(`${where}: ${error.message}`);
      throw error;
    }
  }

  /** Builds the step's request, sends it, reads the answer within bounds, and keeps both. */
  private async call(frame: Frame, step: ArazzoStep, where: string): Promise<Exchange> {
    const operation = frame.resolved.operations.get(step)!;
    if (this.calls.length >= this.limits.maxCalls)
      throw new WorkflowError(`${where}: the run made ${this.limits.maxCalls} calls, the most a run makes`);
    this.options.signal?.throwIfAborted();
    const scope = this.scope(frame);
    const parameters = mergedParameters(
      frame.resolved.parameterList(frame.workflow.parameters ?? [], where),
      frame.resolved.parameterList(step.parameters ?? [], where),
    );
    const pathParams = new Map<string, string>();
    const query = new URLSearchParams();
    const headers = new Map<string, string>();
    const cookies: string[] = [];
    for (const parameter of parameters) {
      const value = this.fill(parameter.value, scope, `${where}, parameter ${parameter.name}`);
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
      requestBody = this.fill(step.requestBody.payload, scope, `${where}, requestBody`);
      for (const replacement of step.requestBody.replacements ?? [])
        requestBody = replaced(
          requestBody,
          pointerTokens(replacement.target),
          this.fill(replacement.value, scope, `${where}, requestBody replacement ${replacement.target}`),
          `${where}, requestBody replacement ${replacement.target}`,
        );
      sent = serialize(requestBody, contentType);
      if (!headers.has("content-type")) headers.set("content-type", contentType);
    }
    const source = frame.resolved.sourceOf.get(step);
    const base = ((source !== undefined ? this.options.servers?.[source] : undefined) ?? this.options.baseUrl).replace(
      /\/+$/,
      "",
    );
    const url = `${base}${target}`;
    const timeout = AbortSignal.timeout(this.limits.callTimeoutMs);
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await this.fetch(
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
      if (this.options.signal?.aborted) throw error;
      const reason = timeout.aborted
        ? `no answer within ${this.limits.callTimeoutMs} ms`
        : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
      throw new WorkflowError(`${where}: ${operation.method} ${url} failed: ${reason}`);
    }
    const text = await readBounded(response, this.limits.maxAnswerBytes, where);
    const contentType = response.headers.get("content-type") ?? "";
    let body: unknown = text === "" ? undefined : text;
    if (text !== "" && isJsonType(contentType)) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    this.kept += Buffer.byteLength(text) + (sent === undefined ? 0 : Buffer.byteLength(sent));
    if (this.kept > this.limits.maxKeptBytes)
      throw new WorkflowError(
        `${where}: the run's requests and answers passed ${this.limits.maxKeptBytes} bytes, the most a run keeps (this answer: ${Buffer.byteLength(text)} bytes); run fewer steps, or ask for smaller answers`,
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
    this.calls.push(call);
    this.options.onCall?.(call);
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

  /** What expressions read at this point of a workflow: its inputs and steps, and the call under way if any. */
  private scope(frame: Frame, exchange?: Exchange, childOutputs?: Map<string, unknown>): ExpressionScope {
    const missing = (expression: Expression, why: string): never => {
      throw new ExpressionError(`${expression.text} has no value: ${why}`);
    };
    const named = (
      values: Map<string, unknown>,
      tail: string[],
      pointer: string[] | undefined,
      expression: Expression,
      what: string,
    ) => {
      const found = splitName(tail, (name) => values.has(name));
      if (!found) return missing(expression, `no ${what} ${tail.join(".")}`);
      const value = valueAt(valueAt(values.get(found.name), found.rest), pointer ?? []);
      return value === undefined ? missing(expression, `${what} ${found.name} holds nothing there`) : value;
    };
    return {
      resolve: (expression) => {
        switch (expression.kind) {
          case "url":
            return exchange ? exchange.url : missing(expression, "no call has been made yet");
          case "method":
            return exchange ? exchange.method : missing(expression, "no call has been made yet");
          case "statusCode":
            return exchange ? exchange.status : missing(expression, "no call has been made yet");
          case "request":
          case "response": {
            if (!exchange) return missing(expression, "no call has been made yet");
            if (expression.source === "body") {
              const value = valueAt(
                expression.kind === "request" ? exchange.requestBody : exchange.body,
                expression.pointer,
              );
              return value === undefined ? missing(expression, "the body holds nothing there") : value;
            }
            const name = expression.name;
            let value: string | null | undefined;
            if (expression.kind === "response")
              value = expression.source === "header" ? exchange.headers.get(name) : undefined;
            else if (expression.source === "header") value = exchange.requestHeaders.get(name.toLowerCase());
            else if (expression.source === "query") value = exchange.query.get(name);
            else value = exchange.pathParams.get(name);
            return value === undefined || value === null
              ? missing(expression, `no ${expression.source} ${name}`)
              : value;
          }
          case "inputs":
            return named(frame.inputs, expression.tail, expression.pointer, expression, "input");
          case "outputs":
            if (!childOutputs)
              return missing(expression, "$outputs is read in the outputs of a step that runs a workflow");
            return named(childOutputs, expression.tail, expression.pointer, expression, "output");
          case "steps": {
            const outputs = frame.steps.get(expression.stepId);
            if (!outputs) return missing(expression, `step ${expression.stepId} has not succeeded yet`);
            return named(outputs, expression.tail, expression.pointer, expression, "output");
          }
          case "workflows": {
            const target = frame.resolved.workflowOf(expression.workflowId);
            const outputs = target ? this.done.get(target.resolved)?.get(target.workflow.workflowId) : undefined;
            if (expression.field === "inputs")
              return named(frame.inputs, expression.tail, expression.pointer, expression, "input");
            if (!outputs) return missing(expression, `workflow ${expression.workflowId} has not ended yet`);
            return named(outputs, expression.tail, expression.pointer, expression, "output");
          }
          case "sourceDescriptions": {
            const source = frame.resolved.document.sourceDescriptions.find(
              (candidate) => candidate.name === expression.name,
            );
            if (!source) return missing(expression, `no source ${expression.name}`);
            return expression.tail.join(".") === "url" ? source.url : missing(expression, "a source gives its url");
          }
          case "components": {
            const section = frame.resolved.document.components?.[expression.section as "parameters"] as
              | Record<string, ArazzoParameter>
              | undefined;
            const value = section && Object.hasOwn(section, expression.name) ? section[expression.name] : undefined;
            if (value === undefined) return missing(expression, "no such component");
            return expression.section === "parameters" ? value.value : value;
          }
        }
      },
    };
  }
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

/** The seconds a retry waits: Retry-After when the answer sends one, else the action's, within the bound. */
function retryAfterSeconds(action: ArazzoFailureAction, headers: Headers | undefined, max: number): number {
  const header = Number(headers?.get("retry-after"));
  const seconds = Number.isFinite(header) && header >= 0 ? header : (action.retryAfter ?? 0);
  return Math.min(seconds, max);
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener("abort", aborted, { once: true });
  });
}

/** The value, or undefined when it names what is not there (an output the answer does not hold). */
function optional(read: () => unknown): unknown {
  try {
    return read();
  } catch (error) {
    if (error instanceof ExpressionError) return undefined;
    throw error;
  }
}

/** A short account of an answer's body for a failure message: its `detail`, or the start of its text. */
function describeAnswer(body: unknown): string {
  if (body === undefined) return "";
  if (body !== null && typeof body === "object" && typeof (body as { detail?: unknown }).detail === "string")
    return `: ${(body as { detail: string }).detail.slice(0, 300)}`;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return `: ${text.slice(0, 300)}${text.length > 300 ? "…" : ""}`;
}
