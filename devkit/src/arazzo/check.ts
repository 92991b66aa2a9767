/**
 * What the Arazzo schema cannot say about a document, checked before anything runs (and by `npm run lint`): every
 * step's operation exists in its source, every runtime expression names a step, output, input or workflow that
 * exists, every reference to a component or a workflow resolves, criteria are simple conditions, retries stay
 * within bounds, and `x-webhooks` names the partner API's webhooks. The document model these checks read (sources,
 * operations, references) is model.ts.
 */
import type { Operation } from "../contract/router.ts";
import type {
  ArazzoCriterion,
  ArazzoDocument,
  ArazzoFailureAction,
  ArazzoParameter,
  ArazzoStep,
  ArazzoSuccessAction,
  ArazzoWorkflow,
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
import { type Catalogue, ResolvedDocument } from "./model.ts";

/** Step ids that need a call's answer: only criteria, outputs and actions may read `$response` and its kin. */
const AFTER_THE_CALL = new Set(["url", "method", "statusCode", "request", "response"]);

/** The checks of one resolved document, each workflow's in turn; what is wrong goes to the document's issues. */
class DocumentCheck {
  private readonly doc: ResolvedDocument;

  constructor(doc: ResolvedDocument) {
    this.doc = doc;
  }

  run(): void {
    for (const workflow of this.doc.document.workflows) this.checkWorkflow(workflow);
  }

  private checkWorkflow(workflow: ArazzoWorkflow): void {
    const here = `workflow ${workflow.workflowId}`;
    const steps = new Map<string, ArazzoStep>();
    for (const step of workflow.steps) {
      if (steps.has(step.stepId))
        this.doc.issue(`${here}, step ${step.stepId}`, "two steps of the workflow have this stepId");
      steps.set(step.stepId, step);
    }
    const inputs = this.doc.inputNames(workflow);
    const inputsRef = workflow.inputs?.$ref;
    if (typeof inputsRef === "string" && !this.doc.inputsSchema(workflow))
      this.doc.issue(`${here}, inputs`, `$ref "${inputsRef}" names no input schema of the document's components`);
    for (const dependency of workflow.dependsOn ?? [])
      if (!this.doc.workflowOf(dependency)) this.doc.issue(here, `dependsOn "${dependency}" names no workflow`);
    for (const type of workflow["x-webhooks"] ?? [])
      if (!this.doc.catalogue.router.webhooks.has(type))
        this.doc.issue(
          here,
          `x-webhooks: "${type}" is not a webhook of the partner API (${[...this.doc.catalogue.router.webhooks.keys()].join(", ")})`,
        );
    const parameters = this.doc.parameterList(workflow.parameters ?? [], `${here}, parameters`);
    for (const parameter of parameters)
      this.checkExpressions(parameter.value, {
        workflow,
        steps,
        inputs,
        where: `${here}, parameter ${parameter.name}`,
        afterCall: false,
      });
    for (const action of this.doc.actionList(workflow.successActions ?? [], "successActions", here))
      this.checkAction(action, workflow, steps, inputs, here);
    for (const action of this.doc.actionList(workflow.failureActions ?? [], "failureActions", here))
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

  private checkStep(
    step: ArazzoStep,
    workflow: ArazzoWorkflow,
    steps: Map<string, ArazzoStep>,
    inputs: Set<string> | undefined,
    workflowParameters: ArazzoParameter[],
  ): void {
    const at = `workflow ${workflow.workflowId}, step ${step.stepId}`;
    const scope = { workflow, steps, inputs, where: at, afterCall: false };
    const parameters = this.doc.parameterList(step.parameters ?? [], `${at}, parameters`);
    let child: { resolved: ResolvedDocument; workflow: ArazzoWorkflow } | undefined;
    if (step.workflowId !== undefined) {
      child = this.doc.workflowOf(step.workflowId);
      if (!child) this.doc.issue(at, `workflowId "${step.workflowId}" names no workflow`);
      const childInputs = child ? child.resolved.inputNames(child.workflow) : undefined;
      for (const parameter of parameters) {
        if (parameter.in !== undefined)
          this.doc.issue(
            at,
            `parameter ${parameter.name}: a step that runs a workflow passes its inputs, without "in"`,
          );
        else if (childInputs && !childInputs.has(parameter.name))
          this.doc.issue(
            at,
            `parameter ${parameter.name} is not an input of workflow ${step.workflowId} (its inputs: ${[...childInputs].join(", ")})`,
          );
      }
      if (step.requestBody !== undefined) this.doc.issue(at, "a step that runs a workflow sends no requestBody");
    }
    const operation = this.doc.operations.get(step);
    if (operation) {
      for (const parameter of parameters) {
        if (parameter.in === undefined) {
          this.doc.issue(at, `parameter ${parameter.name} needs "in" (path, query, header or cookie)`);
          continue;
        }
        if (
          (parameter.in === "path" || parameter.in === "query") &&
          !operation.parameters.some((p) => p.in === parameter.in && p.name === parameter.name)
        )
          this.doc.issue(
            at,
            `${operation.operationId} has no ${parameter.in} parameter ${parameter.name} (${this.parameterNames(operation)})`,
          );
      }
      const all = [...workflowParameters.filter((p) => p.in !== undefined), ...parameters];
      for (const declared of operation.parameters)
        if (declared.in === "path" && !all.some((p) => p.in === "path" && p.name === declared.name))
          this.doc.issue(
            at,
            `the path parameter ${declared.name} of ${operation.operationId} has no value (add it to the step's parameters)`,
          );
      if (step.requestBody !== undefined && !operation.requestBody)
        this.doc.issue(at, `${operation.operationId} takes no request body`);
    }
    for (const parameter of parameters)
      this.checkExpressions(parameter.value, { ...scope, where: `${at}, parameter ${parameter.name}` });
    if (step.requestBody) {
      this.checkExpressions(step.requestBody.payload, { ...scope, where: `${at}, requestBody` });
      for (const replacement of step.requestBody.replacements ?? []) {
        try {
          pointerTokens(replacement.target);
        } catch (error) {
          this.doc.issue(`${at}, requestBody`, `replacement target: ${(error as Error).message}`);
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
        childOutputs: child ? this.doc.outputNames(child.workflow) : undefined,
        childStep: step.workflowId !== undefined,
      });
    for (const action of this.doc.actionList(step.onSuccess ?? [], "successActions", at))
      this.checkAction(action, workflow, steps, inputs, at, step.workflowId === undefined);
    for (const action of this.doc.actionList(step.onFailure ?? [], "failureActions", at))
      this.checkAction(action, workflow, steps, inputs, at, step.workflowId === undefined);
  }

  private parameterNames(operation: Operation): string {
    const names = operation.parameters
      .filter((p) => p.in === "path" || p.in === "query")
      .map((p) => `${p.in} ${p.name}`);
    return names.length > 0 ? `it has ${names.join(", ")}` : "it has none";
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
        this.doc.issue(where, "names both a stepId and a workflowId");
      if (action.stepId !== undefined && !steps.has(action.stepId))
        this.doc.issue(where, `stepId "${action.stepId}" is no step of workflow ${workflow.workflowId}`);
      if (action.workflowId !== undefined && !this.doc.workflowOf(action.workflowId))
        this.doc.issue(where, `workflowId "${action.workflowId}" names no workflow`);
      if (action.type === "goto" && action.stepId === undefined && action.workflowId === undefined)
        this.doc.issue(where, "a goto names a stepId or a workflowId");
    }
    if (action.type === "retry") {
      const { retryAfter = 0, retryLimit = 1 } = action as ArazzoFailureAction;
      if (retryAfter > this.doc.limits.maxRetryAfterSeconds)
        this.doc.issue(
          where,
          `retryAfter ${retryAfter} is over ${this.doc.limits.maxRetryAfterSeconds} seconds, the longest wait a run takes`,
        );
      if (retryLimit > this.doc.limits.maxRetryLimit)
        this.doc.issue(
          where,
          `retryLimit ${retryLimit} is over ${this.doc.limits.maxRetryLimit}, the most retries a run makes`,
        );
    }
    for (const criterion of action.criteria ?? [])
      this.checkCriterion(criterion, { workflow, steps, inputs, where, afterCall });
  }

  private checkCriterion(criterion: ArazzoCriterion, scope: ExpressionCheck): void {
    const type = typeof criterion.type === "object" ? criterion.type.type : (criterion.type ?? "simple");
    if (type !== "simple") {
      this.doc.issue(
        scope.where,
        `a ${type} criterion ("${criterion.condition}"): the runner runs simple conditions only (as in $statusCode == 200)`,
      );
      return;
    }
    try {
      for (const expression of conditionExpressions(parseCondition(criterion.condition)))
        this.checkExpression(expression, scope);
    } catch (error) {
      if (error instanceof ExpressionError) this.doc.issue(scope.where, error.message);
      else throw error;
    }
  }

  private checkExpressions(value: unknown, scope: ExpressionCheck): void {
    for (const text of expressionsIn(value)) {
      try {
        this.checkExpression(parseExpression(text), scope);
      } catch (error) {
        if (error instanceof ExpressionError) this.doc.issue(scope.where, error.message);
        else throw error;
      }
    }
  }

  private checkExpression(expression: Expression, scope: ExpressionCheck): void {
    const { workflow, steps, inputs, where } = scope;
    const fail = (message: string) => this.doc.issue(where, `${expression.text}: ${message}`);
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
        const target = this.doc.workflowOf(expression.workflowId);
        if (!target) {
          fail(`names no workflow ${expression.workflowId}`);
          return;
        }
        const names =
          expression.field === "outputs"
            ? this.doc.outputNames(target.workflow)
            : target.resolved.inputNames(target.workflow);
        if (names && !splitName(expression.tail, (name) => names.has(name)))
          fail(`names no ${expression.field === "outputs" ? "output" : "input"} of workflow ${expression.workflowId}`);
        return;
      }
      case "components":
        if (
          !["inputs", "parameters", "successActions", "failureActions"].includes(expression.section) ||
          !Object.hasOwn(
            (this.doc.document.components?.[expression.section as "inputs"] ?? {}) as object,
            expression.name,
          )
        )
          fail("names nothing in the document's components");
        return;
      case "sourceDescriptions":
        if (!this.doc.sources.has(expression.name)) fail(`names no source description "${expression.name}"`);
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

/** Checks a resolved document: what is wrong goes to its `issues`. */
export function checkDocument(resolved: ResolvedDocument): void {
  new DocumentCheck(resolved).run();
}

/** Resolves and checks a document (and the shipped documents it names); `issues` is empty when it can run. */
export function resolveArazzo(document: ArazzoDocument, shownAs: string, catalogue: Catalogue): ResolvedDocument {
  return new ResolvedDocument(document, shownAs, catalogue, { check: checkDocument });
}
