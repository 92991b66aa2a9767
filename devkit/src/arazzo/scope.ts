/**
 * What the runner's expressions read at a point of a workflow (its inputs and steps' outputs, the workflows that
 * ended, the call under way), and the helpers that fill values and test criteria against it.
 */
import type { ArazzoCriterion, ArazzoParameter } from "./document.ts";
import { WorkflowError } from "./document.ts";
import {
  type Expression,
  ExpressionError,
  type ExpressionScope,
  evaluateCondition,
  fillExpressions,
  parseCondition,
  splitName,
  truthy,
  valueAt,
} from "./expressions.ts";
import type { EndedWorkflows, Exchange, Frame } from "./run-types.ts";

/** What expressions read at this point of a workflow: its inputs and steps, and the call under way if any. */
export function frameScope(
  frame: Frame,
  done: EndedWorkflows,
  exchange?: Exchange,
  childOutputs?: Map<string, unknown>,
): ExpressionScope {
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
          return value === undefined || value === null ? missing(expression, `no ${expression.source} ${name}`) : value;
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
          const outputs = target ? done.get(target.resolved)?.get(target.workflow.workflowId) : undefined;
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

/** True when every criterion holds (none: true). */
export function holds(criteria: readonly ArazzoCriterion[] | undefined, scope: ExpressionScope): boolean {
  return (criteria ?? []).every((criterion) => truthy(evaluateCondition(parseCondition(criterion.condition), scope)));
}

/** A value with its expressions filled in; one that names nothing is an error naming the step and the value. */
export function fillValue(value: unknown, scope: ExpressionScope, where: string): unknown {
  try {
    return fillExpressions(value, scope);
  } catch (error) {
    if (error instanceof ExpressionError) throw new WorkflowError(`${where}: ${error.message}`);
    throw error;
  }
}

/** The value, or undefined when it names what is not there (an output the answer does not hold). */
export function optional(read: () => unknown): unknown {
  try {
    return read();
  } catch (error) {
    if (error instanceof ExpressionError) return undefined;
    throw error;
  }
}
