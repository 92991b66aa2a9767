/**
 * The Arazzo runner: runs a workflow of a checked document step by step over a `fetch` (a server's base URL, or the
 * sandbox's own HTTP handler in-process), filling parameters and bodies from inputs and earlier outputs, checking
 * each answer against its success criteria, following success and failure actions, and keeping every call's
 * request and answer. A run is bounded: calls, bytes read per answer, bytes kept in all, nesting, retries and waits;
 * past a bound it stops with a WorkflowError that names the bound. It reads the document model (model.ts); one call
 * is call.ts, what expressions read is scope.ts, what a run takes and gives is run-types.ts.
 */
import { type CallSite, callStep } from "./call.ts";
import {
  type ArazzoFailureAction,
  type ArazzoStep,
  type ArazzoSuccessAction,
  type ArazzoWorkflow,
  type FailedStep,
  WorkflowError,
} from "./document.ts";
import { fillExpressions } from "./expressions.ts";
import type { ResolvedDocument } from "./model.ts";
import {
  DEFAULT_RUN_LIMITS,
  type EndedWorkflows,
  type Exchange,
  type Fetch,
  type Frame,
  type RunLimits,
  type RunOptions,
  type StepCall,
  type WorkflowRun,
} from "./run-types.ts";
import { fillValue, frameScope, holds, optional } from "./scope.ts";

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

class Run implements CallSite {
  readonly calls: StepCall[] = [];
  readonly finished: WorkflowRun["workflows"] = [];
  readonly limits: RunLimits;
  readonly fetch: Fetch;
  readonly done: EndedWorkflows = new Map();
  kept = 0;

  readonly options: RunOptions;

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
        const action = actions.find((candidate) => holds(candidate.criteria, scope));
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
        if (!holds(action.criteria, scope)) continue;
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
        inputs.set(parameter.name, fillValue(parameter.value, scope, `${where}, parameter ${parameter.name}`));
      try {
        const outputs = await this.workflow(target.resolved, target.workflow, inputs, depth + 1);
        return { ok: true, why: "", childOutputs: outputs };
      } catch (error) {
        if (!(error instanceof WorkflowError)) throw error;
        return { ok: false, why: error.message, ...(error.failedStep ? { failedStep: error.failedStep } : {}) };
      }
    }
    const exchange = await callStep(this, frame, step, where);
    const scope = this.scope(frame, exchange);
    const criteria = step.successCriteria ?? [];
    const failed = criteria.filter((criterion) => !holds([criterion], scope)).map((c) => c.condition);
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

  private scope(frame: Frame, exchange?: Exchange, childOutputs?: Map<string, unknown>) {
    return frameScope(frame, this.done, exchange, childOutputs);
  }
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

/** A short account of an answer's body for a failure message: its `detail`, or the start of its text. */
function describeAnswer(body: unknown): string {
  if (body === undefined) return "";
  if (body !== null && typeof body === "object" && typeof (body as { detail?: unknown }).detail === "string")
    return `: ${(body as { detail: string }).detail.slice(0, 300)}`;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return `: ${text.slice(0, 300)}${text.length > 300 ? "…" : ""}`;
}
