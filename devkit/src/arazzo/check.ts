/**
 * What the Arazzo schema cannot say about a document, checked before anything runs (and by `npm run lint`): every
 * step's operation exists in its source, every runtime expression names a step, output, input or workflow that
 * exists, every reference to a component or a workflow resolves, criteria are simple conditions, retries stay
 * within bounds, and `x-webhooks` names the partner API's webhooks. Resolving a document also tells which API each
 * source is (the partner API or the sandbox's control API, by the operations its steps call) and which shipped
 * document each `arazzo` source is (by file name).
 */
import type { ContractRouter, Operation } from "../contract/router.ts";
import {
  type ArazzoCriterion,
  type ArazzoDocument,
  type ArazzoFailureAction,
  type ArazzoParameter,
  type ArazzoReusable,
  type ArazzoStep,
  type ArazzoSuccessAction,
  type ArazzoWorkflow,
  fileNameOf,
  type ShippedDocument,
  WorkflowError,
} from "./document.ts";
import {
  conditionExpressions,
  type Expression,
  ExpressionError,
  expressionsIn,
  parseCondition,
  parseExpression,
  pointerTokens,
  splitName,
} from "./expressions.ts";

/** One thing wrong with a document: where (workflow, step, field) and what. */
export interface ArazzoIssue {
  at: string;
  message: string;
}

/** Bounds on what a document may ask for (retries); the run's own bounds are in runner.ts. */
export interface CheckLimits {
  /** The longest `retryAfter`, in seconds. */
  maxRetryAfterSeconds: number;
  /** The largest `retryLimit`. */
  maxRetryLimit: number;
}

export const DEFAULT_CHECK_LIMITS: CheckLimits = { maxRetryAfterSeconds: 10, maxRetryLimit: 10 };

/** What documents are resolved against: the two APIs' operations, and the Arazzo documents `arazzo` sources name. */
export interface Catalogue {
  router: ContractRouter;
  /** Arazzo documents by file name (the shipped ones). */
  documents: ReadonlyMap<string, ShippedDocument>;
  limits?: CheckLimits;
}

/** Step ids that need a call's answer: only criteria, outputs and actions may read `$response` and its kin. */
const AFTER_THE_CALL = new Set(["url", "method", "statusCode", "request", "response"]);

const isReusable = (value: unknown): value is ArazzoReusable =>
  value !== null && typeof value === "object" && Object.hasOwn(value, "reference");

/** A document with its sources and references resolved, and the issues found on the way. */
export class ResolvedDocument {
  readonly issues: ArazzoIssue[] = [];
  readonly workflows = new Map<string, ArazzoWorkflow>();
  /** Each `openapi` source's API, by source name (a source no step calls through has none). */
  readonly apiOf = new Map<string, Operation["api"]>();
  /** Each step's operation (operation steps only). */
  readonly operations = new Map<ArazzoStep, Operation>();
  /** Each operation step's source, by which a run finds the server to call (`servers`). */
  readonly sourceOf = new Map<ArazzoStep, string>();
  private readonly arazzoSources = new Map<string, ResolvedDocument>();
  private readonly sources = new Map<string, ArazzoDocument["sourceDescriptions"][number]>();
  private readonly limits: CheckLimits;

  readonly document: ArazzoDocument;
  readonly shownAs: string;
  private readonly catalogue: Catalogue;
  /** Shipped documents resolved or being resolved, by file name: two that name each other resolve once. */
  private readonly resolving: Map<string, ResolvedDocument>;
  constructor(
    document: ArazzoDocument,
    shownAs: string,
    catalogue: Catalogue,
    resolving: Map<string, ResolvedDocument> = new Map(),
    file?: string,
  ) {
    this.document = document;
    this.shownAs = shownAs;
    this.catalogue = catalogue;
    this.resolving = resolving;
    this.limits = catalogue.limits ?? DEFAULT_CHECK_LIMITS;
    if (file !== undefined) resolving.set(file, this);
    this.check();
  }

  /** Throws a WorkflowError listing every issue, when there is one. */
  orThrow(): this {
    if (this.issues.length > 0)
      throw new WorkflowError(
        `${this.shownAs} cannot run: ${this.issues
          .slice(0, 20)
          .map((issue) => `${issue.at}: ${issue.message}`)
          .join("; ")}${this.issues.length > 20 ? `; and ${this.issues.length - 20} more` : ""}`,
      );
    return this;
  }

  /** The workflow a step or an action names (`id` here, `$sourceDescriptions.name.id` in an `arazzo` source). */
  workflowOf(reference: string): { resolved: ResolvedDocument; workflow: ArazzoWorkflow } | undefined {
    if (!reference.startsWith("$")) {
      const workflow = this.workflows.get(reference);
      return workflow ? { resolved: this, workflow } : undefined;
    }
    let expression: Expression;
    try {
      expression = parseExpression(reference);
    } catch {
      return undefined;
    }
    if (expression.kind !== "sourceDescriptions" || expression.tail.length !== 1) return undefined;
    const resolved = this.arazzoSources.get(expression.name);
    const workflow = resolved?.workflows.get(expression.tail[0]!);
    return resolved && workflow ? { resolved, workflow } : undefined;
  }

  /** An `arazzo` source resolved, by source name. */
  arazzoSource(name: string): ResolvedDocument | undefined {
    return this.arazzoSources.get(name);
  }

  private issue(at: string, message: string): void {
    this.issues.push({ at, message });
  }

  private check(): void {
    const { document } = this;
    for (const source of document.sourceDescriptions) {
      if (this.sources.has(source.name)) this.issue(`source ${source.name}`, "two source descriptions have this name");
      this.sources.set(source.name, source);
    }
    for (const source of document.sourceDescriptions) if (source.type === "arazzo") this.resolveArazzoSource(source);
    for (const workflow of document.workflows) {
      if (this.workflows.has(workflow.workflowId))
        this.issue(`workflow ${workflow.workflowId}`, "two workflows have this workflowId");
      this.workflows.set(workflow.workflowId, workflow);
    }
    this.resolveOperations();
    for (const workflow of document.workflows) this.checkWorkflow(workflow);
  }

  private resolveArazzoSource(source: ArazzoDocument["sourceDescriptions"][number]): void {
    const file = fileNameOf(source.url);
    const known = this.catalogue.documents.get(file);
    if (!known) {
      this.issue(
        `source ${source.name}`,
        `an arazzo source must be a shipped document (${[...this.catalogue.documents.keys()].join(", ") || "none"}); "${source.url}" is none of them`,
      );
      return;
    }
    const resolved =
      this.resolving.get(file) ??
      new ResolvedDocument(known.document, `the shipped workflows ${file}`, this.catalogue, this.resolving, file);
    if (resolved.issues.length > 0)
      this.issue(`source ${source.name}`, `${file} has issues of its own: ${resolved.issues[0]!.message}`);
    this.arazzoSources.set(source.name, resolved);
  }

  /** Finds each operation step's operation, and from them each source's API. */
  private resolveOperations(): void {
    const openapiSources = this.document.sourceDescriptions.filter((source) => source.type !== "arazzo");
    const byApi = new Map<string, Set<Operation["api"]>>();
    for (const workflow of this.document.workflows) {
      for (const step of workflow.steps) {
        const at = `workflow ${workflow.workflowId}, step ${step.stepId}`;
        let found: { source?: string; operation: Operation } | undefined;
        if (step.operationId !== undefined) found = this.findOperationById(step.operationId, openapiSources, at);
        else if (step.operationPath !== undefined) found = this.findOperationByPath(step.operationPath, at);
        if (!found) continue;
        this.operations.set(step, found.operation);
        if (found.source !== undefined) {
          this.sourceOf.set(step, found.source);
          const apis = byApi.get(found.source) ?? new Set();
          apis.add(found.operation.api);
          byApi.set(found.source, apis);
        }
      }
    }
    for (const [source, apis] of byApi) {
      if (apis.size > 1)
        this.issue(
          `source ${source}`,
          "its steps call operations of both the partner API and the sandbox's control API; a source is one of them",
        );
      this.apiOf.set(source, [...apis][0]!);
    }
  }

  private findOperationById(
    reference: string,
    openapiSources: ArazzoDocument["sourceDescriptions"],
    at: string,
  ): { source?: string; operation: Operation } | undefined {
    let source: string | undefined;
    let operationId = reference;
    if (reference.startsWith("$")) {
      let expression: Expression | undefined;
      try {
        expression = parseExpression(reference);
      } catch (error) {
        this.issue(at, (error as Error).message);
        return undefined;
      }
      if (expression.kind !== "sourceDescriptions" || expression.tail.length !== 1) {
        this.issue(
          at,
          `operationId "${reference}" must be an operationId or $sourceDescriptions.<source>.<operationId>`,
        );
        return undefined;
      }
      source = expression.name;
      operationId = expression.tail[0]!;
      const described = this.sources.get(source);
      if (!described) {
        this.issue(
          at,
          `operationId "${reference}" names no source description "${source}" (sources: ${[...this.sources.keys()].join(", ")})`,
        );
        return undefined;
      }
      if (described.type === "arazzo") {
        this.issue(
          at,
          `operationId "${reference}" names the arazzo source "${source}"; operations come from openapi sources`,
        );
        return undefined;
      }
    } else if (openapiSources.length > 1) {
      this.issue(
        at,
        `operationId "${reference}" must name its source as $sourceDescriptions.<source>.${reference}: the document has ${openapiSources.length} OpenAPI sources`,
      );
      return undefined;
    } else source = openapiSources[0]?.name;
    const operation = this.catalogue.router.operations.find((candidate) => candidate.operationId === operationId);
    if (!operation) {
      this.issue(
        at,
        `operationId "${operationId}" is not an operation of the partner API or the sandbox's control API`,
      );
      return undefined;
    }
    return { ...(source !== undefined ? { source } : {}), operation };
  }

  private findOperationByPath(reference: string, at: string): { source: string; operation: Operation } | undefined {
    const match = /^\{\$sourceDescriptions\.([A-Za-z0-9_-]+)\.url\}#(.*)$/.exec(reference);
    if (!match) {
      this.issue(at, `operationPath "${reference}" must be {$sourceDescriptions.<source>.url}#/paths/<path>/<method>`);
      return undefined;
    }
    const [, source = "", pointer = ""] = match;
    if (!this.sources.has(source)) {
      this.issue(at, `operationPath names no source description "${source}"`);
      return undefined;
    }
    let tokens: string[];
    try {
      tokens = pointerTokens(pointer);
    } catch (error) {
      this.issue(at, (error as Error).message);
      return undefined;
    }
    const [paths, path = "", method = ""] = tokens;
    const match2 =
      paths === "paths" && tokens.length === 3 ? this.catalogue.router.match(method.toUpperCase(), path) : undefined;
    const operation = match2?.kind === "operation" && match2.operation.path === path ? match2.operation : undefined;
    if (!operation) {
      this.issue(
        at,
        `operationPath "${reference}" points at no operation of the partner API or the sandbox's control API`,
      );
      return undefined;
    }
    return { source, operation };
  }

  private checkWorkflow(workflow: ArazzoWorkflow): void {
    const here = `workflow ${workflow.workflowId}`;
    const steps = new Map<string, ArazzoStep>();
    for (const step of workflow.steps) {
      if (steps.has(step.stepId))
        this.issue(`${here}, step ${step.stepId}`, "two steps of the workflow have this stepId");
      steps.set(step.stepId, step);
    }
    const inputs = this.inputNames(workflow);
    const inputsRef = workflow.inputs?.$ref;
    if (typeof inputsRef === "string" && !this.inputsSchema(workflow))
      this.issue(`${here}, inputs`, `$ref "${inputsRef}" names no input schema of the document's components`);
    for (const dependency of workflow.dependsOn ?? [])
      if (!this.workflowOf(dependency)) this.issue(here, `dependsOn "${dependency}" names no workflow`);
    for (const type of workflow["x-webhooks"] ?? [])
      if (!this.catalogue.router.webhooks.has(type))
        this.issue(
          here,
          `x-webhooks: "${type}" is not a webhook of the partner API (${[...this.catalogue.router.webhooks.keys()].join(", ")})`,
        );
    const parameters = this.parameterList(workflow.parameters ?? [], `${here}, parameters`);
    for (const parameter of parameters)
      this.checkExpressions(parameter.value, {
        workflow,
        steps,
        inputs,
        where: `${here}, parameter ${parameter.name}`,
        afterCall: false,
      });
    for (const action of this.actionList(workflow.successActions ?? [], "successActions", here))
      this.checkAction(action, workflow, steps, inputs, here);
    for (const action of this.actionList(workflow.failureActions ?? [], "failureActions", here))
      this.checkAction(action, workflow, steps, inputs, here);
    for (const step of workflow.steps) this.checkStep(step, workflow, steps, inputs, parameters);
    for (const [name, expression] of Object.entries(workflow.outputs ?? {}))
      this.checkExpressions(expression, {
        workflow,
        steps,
        inputs,
        where: `${here}, output ${name}`,
        afterCall: false,
      });
  }

  /** The names a workflow's inputs schema declares, or undefined when it declares none (any name goes). */
  private inputNames(workflow: ArazzoWorkflow): Set<string> | undefined {
    const schema = this.inputsSchema(workflow);
    const properties = schema?.properties;
    if (properties === null || typeof properties !== "object") return undefined;
    return new Set(Object.keys(properties));
  }

  /** A workflow's inputs schema, its `$ref` to `#/components/inputs/…` followed; undefined when it has none. */
  inputsSchema(workflow: ArazzoWorkflow): Record<string, unknown> | undefined {
    const schema = workflow.inputs;
    const ref = schema?.$ref;
    if (typeof ref !== "string") return schema;
    const name = /^#\/components\/inputs\/(.+)$/.exec(ref)?.[1];
    const inputs = this.document.components?.inputs;
    return name !== undefined && inputs && Object.hasOwn(inputs, name) ? inputs[name] : undefined;
  }

  /** Parameters with their reusable references followed (a reference's `value` replaces the component's). */
  parameterList(list: readonly (ArazzoParameter | ArazzoReusable)[], at: string): ArazzoParameter[] {
    const result: ArazzoParameter[] = [];
    for (const item of list) {
      if (!isReusable(item)) {
        result.push(item);
        continue;
      }
      const component = this.component(item.reference, "parameters", at) as ArazzoParameter | undefined;
      if (component) result.push(Object.hasOwn(item, "value") ? { ...component, value: item.value } : component);
    }
    return result;
  }

  actionList<T extends ArazzoSuccessAction | ArazzoFailureAction>(
    list: readonly (T | ArazzoReusable)[],
    section: "successActions" | "failureActions",
    at: string,
  ): T[] {
    const result: T[] = [];
    for (const item of list) {
      if (!isReusable(item)) result.push(item as T);
      else {
        const component = this.component(item.reference, section, at);
        if (component) result.push(component as T);
      }
    }
    return result;
  }

  private component(
    reference: string,
    section: "parameters" | "successActions" | "failureActions",
    at: string,
  ): unknown {
    let expression: Expression;
    try {
      expression = parseExpression(reference);
    } catch (error) {
      this.issue(at, (error as Error).message);
      return undefined;
    }
    const components = this.document.components?.[section] as Record<string, unknown> | undefined;
    if (
      expression.kind !== "components" ||
      expression.section !== section ||
      !components ||
      !Object.hasOwn(components, expression.name)
    ) {
      this.issue(at, `reference "${reference}" names no ${section} of the document's components`);
      return undefined;
    }
    return components[expression.name];
  }

  private checkStep(
    step: ArazzoStep,
    workflow: ArazzoWorkflow,
    steps: Map<string, ArazzoStep>,
    inputs: Set<string> | undefined,
    workflowParameters: ArazzoParameter[],
  ): void {
    const at = `workflow ${workflow.workflowId}, step ${step.stepId}`;
    const scope = { workflow, steps, inputs, where: at, afterCall: false };
    const parameters = this.parameterList(step.parameters ?? [], `${at}, parameters`);
    let child: { resolved: ResolvedDocument; workflow: ArazzoWorkflow } | undefined;
    if (step.workflowId !== undefined) {
      child = this.workflowOf(step.workflowId);
      if (!child) this.issue(at, `workflowId "${step.workflowId}" names no workflow`);
      const childInputs = child ? child.resolved.inputNames(child.workflow) : undefined;
      for (const parameter of parameters) {
        if (parameter.in !== undefined)
          this.issue(at, `parameter ${parameter.name}: a step that runs a workflow passes its inputs, without "in"`);
        else if (childInputs && !childInputs.has(parameter.name))
          this.issue(
            at,
            `parameter ${parameter.name} is not an input of workflow ${step.workflowId} (its inputs: ${[...childInputs].join(", ")})`,
          );
      }
      if (step.requestBody !== undefined) this.issue(at, "a step that runs a workflow sends no requestBody");
    }
    const operation = this.operations.get(step);
    if (operation) {
      for (const parameter of parameters) {
        if (parameter.in === undefined) {
          this.issue(at, `parameter ${parameter.name} needs "in" (path, query, header or cookie)`);
          continue;
        }
        if (
          (parameter.in === "path" || parameter.in === "query") &&
          !operation.parameters.some((p) => p.in === parameter.in && p.name === parameter.name)
        )
          this.issue(
            at,
            `${operation.operationId} has no ${parameter.in} parameter ${parameter.name} (${this.parameterNames(operation)})`,
          );
      }
      const all = [...workflowParameters.filter((p) => p.in !== undefined), ...parameters];
      for (const declared of operation.parameters)
        if (declared.in === "path" && !all.some((p) => p.in === "path" && p.name === declared.name))
          this.issue(
            at,
            `the path parameter ${declared.name} of ${operation.operationId} has no value (add it to the step's parameters)`,
          );
      if (step.requestBody !== undefined && !operation.requestBody)
        this.issue(at, `${operation.operationId} takes no request body`);
    }
    for (const parameter of parameters)
      this.checkExpressions(parameter.value, { ...scope, where: `${at}, parameter ${parameter.name}` });
    if (step.requestBody) {
      this.checkExpressions(step.requestBody.payload, { ...scope, where: `${at}, requestBody` });
      for (const replacement of step.requestBody.replacements ?? []) {
        try {
          pointerTokens(replacement.target);
        } catch (error) {
          this.issue(`${at}, requestBody`, `replacement target: ${(error as Error).message}`);
        }
        this.checkExpressions(replacement.value, {
          ...scope,
          where: `${at}, requestBody replacement ${replacement.target}`,
        });
      }
    }
    const after = { ...scope, afterCall: step.workflowId === undefined };
    for (const criterion of step.successCriteria ?? [])
      this.checkCriterion(criterion, { ...after, where: `${at}, successCriteria` });
    for (const [name, expression] of Object.entries(step.outputs ?? {}))
      this.checkExpressions(expression, {
        ...after,
        where: `${at}, output ${name}`,
        childOutputs: child ? this.outputNames(child.workflow) : undefined,
        childStep: step.workflowId !== undefined,
      });
    for (const action of this.actionList(step.onSuccess ?? [], "successActions", at))
      this.checkAction(action, workflow, steps, inputs, at, step.workflowId === undefined);
    for (const action of this.actionList(step.onFailure ?? [], "failureActions", at))
      this.checkAction(action, workflow, steps, inputs, at, step.workflowId === undefined);
  }

  private parameterNames(operation: Operation): string {
    const names = operation.parameters
      .filter((p) => p.in === "path" || p.in === "query")
      .map((p) => `${p.in} ${p.name}`);
    return names.length > 0 ? `it has ${names.join(", ")}` : "it has none";
  }

  private outputNames(workflow: ArazzoWorkflow): Set<string> {
    return new Set(Object.keys(workflow.outputs ?? {}));
  }

  private checkAction(
    action: ArazzoSuccessAction | ArazzoFailureAction,
    workflow: ArazzoWorkflow,
    steps: Map<string, ArazzoStep>,
    inputs: Set<string> | undefined,
    at: string,
    afterCall = false,
  ): void {
    const where = `${at}, action ${action.name}`;
    if (action.type === "goto" || action.type === "retry") {
      if (action.stepId !== undefined && action.workflowId !== undefined)
        this.issue(where, "names both a stepId and a workflowId");
      if (action.stepId !== undefined && !steps.has(action.stepId))
        this.issue(where, `stepId "${action.stepId}" is no step of workflow ${workflow.workflowId}`);
      if (action.workflowId !== undefined && !this.workflowOf(action.workflowId))
        this.issue(where, `workflowId "${action.workflowId}" names no workflow`);
      if (action.type === "goto" && action.stepId === undefined && action.workflowId === undefined)
        this.issue(where, "a goto names a stepId or a workflowId");
    }
    if (action.type === "retry") {
      const { retryAfter = 0, retryLimit = 1 } = action as ArazzoFailureAction;
      if (retryAfter > this.limits.maxRetryAfterSeconds)
        this.issue(
          where,
          `retryAfter ${retryAfter} is over ${this.limits.maxRetryAfterSeconds} seconds, the longest wait a run takes`,
        );
      if (retryLimit > this.limits.maxRetryLimit)
        this.issue(
          where,
          `retryLimit ${retryLimit} is over ${this.limits.maxRetryLimit}, the most retries a run makes`,
        );
    }
    for (const criterion of action.criteria ?? [])
      this.checkCriterion(criterion, { workflow, steps, inputs, where, afterCall });
  }

  private checkCriterion(criterion: ArazzoCriterion, scope: ExpressionCheck): void {
    const type = typeof criterion.type === "object" ? criterion.type.type : (criterion.type ?? "simple");
    if (type !== "simple") {
      this.issue(
        scope.where,
        `a ${type} criterion ("${criterion.condition}"): the runner runs simple conditions only (as in $statusCode == 200)`,
      );
      return;
    }
    try {
      for (const expression of conditionExpressions(parseCondition(criterion.condition)))
        this.checkExpression(expression, scope);
    } catch (error) {
      if (error instanceof ExpressionError) this.issue(scope.where, error.message);
      else throw error;
    }
  }

  private checkExpressions(value: unknown, scope: ExpressionCheck): void {
    for (const text of expressionsIn(value)) {
      try {
        this.checkExpression(parseExpression(text), scope);
      } catch (error) {
        if (error instanceof ExpressionError) this.issue(scope.where, error.message);
        else throw error;
      }
    }
  }

  private checkExpression(expression: Expression, scope: ExpressionCheck): void {
    const { workflow, steps, inputs, where } = scope;
    const fail = (message: string) => this.issue(where, `${expression.text}: ${message}`);
    if (AFTER_THE_CALL.has(expression.kind)) {
      if (!scope.afterCall) fail("is known only after a call: in a step's successCriteria, outputs and actions");
      return;
    }
    switch (expression.kind) {
      case "inputs":
        if (inputs && !splitName(expression.tail, (name) => inputs.has(name)))
          fail(`names no input of workflow ${workflow.workflowId} (its inputs: ${[...inputs].join(", ") || "none"})`);
        return;
      case "steps": {
        const step = steps.get(expression.stepId);
        if (!step) {
          fail(`names no step of workflow ${workflow.workflowId} (its steps: ${[...steps.keys()].join(", ")})`);
          return;
        }
        const outputs = new Set(Object.keys(step.outputs ?? {}));
        if (!splitName(expression.tail, (name) => outputs.has(name)))
          fail(`names no output of step ${expression.stepId} (its outputs: ${[...outputs].join(", ") || "none"})`);
        return;
      }
      case "outputs":
        if (!scope.childStep) {
          fail("$outputs is read in the outputs of a step that runs a workflow (that workflow's outputs)");
          return;
        }
        if (scope.childOutputs && !splitName(expression.tail, (name) => scope.childOutputs!.has(name)))
          fail(
            `names no output of the workflow the step runs (its outputs: ${[...scope.childOutputs].join(", ") || "none"})`,
          );
        return;
      case "workflows": {
        const target = this.workflowOf(expression.workflowId);
        if (!target) {
          fail(`names no workflow ${expression.workflowId}`);
          return;
        }
        const names =
          expression.field === "outputs"
            ? this.outputNames(target.workflow)
            : target.resolved.inputNames(target.workflow);
        if (names && !splitName(expression.tail, (name) => names.has(name)))
          fail(`names no ${expression.field === "outputs" ? "output" : "input"} of workflow ${expression.workflowId}`);
        return;
      }
      case "components":
        if (
          !["inputs", "parameters", "successActions", "failureActions"].includes(expression.section) ||
          !Object.hasOwn((this.document.components?.[expression.section as "inputs"] ?? {}) as object, expression.name)
        )
          fail("names nothing in the document's components");
        return;
      case "sourceDescriptions":
        if (!this.sources.has(expression.name)) fail(`names no source description "${expression.name}"`);
        return;
    }
  }
}

interface ExpressionCheck {
  workflow: ArazzoWorkflow;
  steps: Map<string, ArazzoStep>;
  inputs: Set<string> | undefined;
  where: string;
  /** True where a call's answer is known (a step's criteria, outputs and actions). */
  afterCall: boolean;
  /** In the outputs of a step that runs a workflow: `$outputs` reads that workflow's outputs. */
  childStep?: boolean;
  childOutputs?: Set<string>;
}

/** Resolves and checks a document; `issues` is empty when it can run. */
export function resolveArazzo(document: ArazzoDocument, shownAs: string, catalogue: Catalogue): ResolvedDocument {
  return new ResolvedDocument(document, shownAs, catalogue);
}
