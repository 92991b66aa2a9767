/**
 * Arazzo 1.0.1 runtime expressions (`$statusCode`, `$response.body#/company/id`, `$steps.onboard.outputs.companyId`,
 * `{$inputs.apiKey}` inside a string) and simple conditions (`$statusCode == 201 && $response.body#/card/status ==
 * 'Creating'`): parsed once, evaluated against a scope, never with `eval`. Names read from a document are looked up
 * in Maps, so `constructor` or `__proto__` is a name like any other.
 */

/** An expression or condition that does not parse, or names something that is not there; the message says which. */
export class ExpressionError extends Error {
  override readonly name = "ExpressionError";
}

/** Where a value comes from, as the Arazzo grammar names it. */
export type Expression =
  | { kind: "url" | "method" | "statusCode"; text: string }
  | { kind: "request" | "response"; source: "header" | "query" | "path"; name: string; text: string }
  | { kind: "request" | "response"; source: "body"; pointer: string[]; text: string }
  /** `$inputs.x`, `$outputs.x`: `tail` is everything after the prefix (a name, then properties), resolved on use. */
  | { kind: "inputs" | "outputs"; tail: string[]; pointer?: string[]; text: string }
  | { kind: "steps"; stepId: string; tail: string[]; pointer?: string[]; text: string }
  | {
      kind: "workflows";
      workflowId: string;
      field: "inputs" | "outputs";
      tail: string[];
      pointer?: string[];
      text: string;
    }
  | { kind: "sourceDescriptions"; name: string; tail: string[]; text: string }
  | { kind: "components"; section: string; name: string; text: string };

const ROOTS = [
  "$url",
  "$method",
  "$statusCode",
  "$request.",
  "$response.",
  "$inputs.",
  "$outputs.",
  "$steps.",
  "$workflows.",
  "$sourceDescriptions.",
  "$components.",
];

/** True when `text` starts like a runtime expression (`$steps.`, `$statusCode`…); `$5 off` does not. */
export function looksLikeExpression(text: string): boolean {
  return ROOTS.some((root) => (root.endsWith(".") ? text.startsWith(root) : text === root));
}

/** A JSON pointer's tokens (RFC 6901): `/a~1b/0` → [`a/b`, `0`]. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new ExpressionError(`"${pointer}" is not a JSON pointer (it must start with /)`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function split(text: string): { path: string; pointer?: string[] } {
  const hash = text.indexOf("#");
  if (hash === -1) return { path: text };
  return { path: text.slice(0, hash), pointer: pointerTokens(text.slice(hash + 1)) };
}

/** Parses one runtime expression (the whole of `text`); throws ExpressionError naming it when it is not one. */
export function parseExpression(text: string): Expression {
  const fail = (why: string): never => {
    throw new ExpressionError(`"${text}" is not a runtime expression: ${why}`);
  };
  if (text === "$url") return { kind: "url", text };
  if (text === "$method") return { kind: "method", text };
  if (text === "$statusCode") return { kind: "statusCode", text };
  const { path, pointer } = split(text);
  const parts = path.split(".");
  const [root = "", ...rest] = parts;
  switch (root) {
    case "$request":
    case "$response": {
      const kind = root === "$request" ? "request" : "response";
      const [source, ...name] = rest;
      if (source === "body") {
        if (name.length > 0) fail(`the body is read with #/a/json/pointer, not .${name.join(".")}`);
        return { kind, source, pointer: pointer ?? [], text };
      }
      if (source !== "header" && source !== "query" && source !== "path")
        return fail(`${root}. is followed by header, query, path or body`);
      if (pointer !== undefined) fail(`only ${root}.body takes a #/json/pointer`);
      if (name.length === 0 || name.join(".") === "") fail(`${root}.${source} needs a name`);
      return { kind, source, name: name.join("."), text };
    }
    case "$inputs":
    case "$outputs":
      if (rest.length === 0 || rest[0] === "") fail(`${root} needs a name`);
      return { kind: root === "$inputs" ? "inputs" : "outputs", tail: rest, ...(pointer ? { pointer } : {}), text };
    case "$steps": {
      const [stepId, field, ...tail] = rest;
      if (!stepId) return fail("$steps needs a step id");
      if (field !== "outputs") fail(`a step is read through .outputs (as in $steps.${stepId}.outputs.name)`);
      if (tail.length === 0 || tail[0] === "") fail("an output needs a name");
      return { kind: "steps", stepId, tail, ...(pointer ? { pointer } : {}), text };
    }
    case "$workflows": {
      const [workflowId, field, ...tail] = rest;
      if (!workflowId) return fail("$workflows needs a workflow id");
      if (field !== "inputs" && field !== "outputs")
        return fail(`a workflow is read through .inputs or .outputs (as in $workflows.${workflowId}.outputs.name)`);
      if (tail.length === 0 || tail[0] === "") fail(`$workflows.${workflowId}.${field} needs a name`);
      return { kind: "workflows", workflowId, field, tail, ...(pointer ? { pointer } : {}), text };
    }
    case "$sourceDescriptions": {
      const [name, ...tail] = rest;
      if (!name) return fail("$sourceDescriptions needs a source name");
      if (pointer !== undefined) fail("a source description takes no #/json/pointer");
      return { kind: "sourceDescriptions", name, tail, text };
    }
    case "$components": {
      const [section, ...name] = rest;
      if (!section || name.length === 0) return fail("$components is read as $components.<section>.<name>");
      return { kind: "components", section, name: name.join("."), text };
    }
    default:
      return fail(`it starts with none of ${ROOTS.join(", ")}`);
  }
}

/**
 * A name followed by properties, where the name itself may hold dots (Arazzo output names may): the longest
 * leading run of `tail` that is a known name, then the rest as properties. Undefined when no run is known.
 */
export function splitName(
  tail: readonly string[],
  known: (name: string) => boolean,
): { name: string; rest: string[] } | undefined {
  for (let length = tail.length; length > 0; length--) {
    const name = tail.slice(0, length).join(".");
    if (known(name)) return { name, rest: tail.slice(length) };
  }
  return undefined;
}

/** The value at a JSON pointer (or a path of property names) inside `value`; `undefined` when there is none. */
export function valueAt(value: unknown, tokens: readonly string[]): unknown {
  let node = value;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (node !== null && typeof node === "object") {
      if (!Object.hasOwn(node, token)) return undefined;
      node = (node as Record<string, unknown>)[token];
    } else return undefined;
  }
  return node;
}

/** Where an expression's values come from, as the runner sees them at that moment. */
export interface ExpressionScope {
  /** Resolves one parsed expression; throws ExpressionError when what it names is not there. */
  resolve(expression: Expression): unknown;
}

/** Every `{$…}` inside a string: the expressions and where they sit. */
export function embeddedExpressions(text: string): { start: number; end: number; expression: string }[] {
  const found: { start: number; end: number; expression: string }[] = [];
  for (let start = text.indexOf("{$"); start !== -1; start = text.indexOf("{$", start + 1)) {
    const end = text.indexOf("}", start);
    if (end === -1) break;
    found.push({ start, end: end + 1, expression: text.slice(start + 1, end) });
  }
  return found;
}

/** Every runtime expression a value holds: whole strings (`$steps.a.outputs.b`) and embedded ones (`{$inputs.x}`). */
export function expressionsIn(value: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > 64) return;
    if (typeof node === "string") {
      if (looksLikeExpression(node)) found.push(node);
      else for (const { expression } of embeddedExpressions(node)) found.push(expression);
    } else if (Array.isArray(node)) for (const item of node) walk(item, depth + 1);
    else if (node !== null && typeof node === "object") for (const item of Object.values(node)) walk(item, depth + 1);
  };
  walk(value, 0);
  return found;
}

/**
 * A copy of `value` with its runtime expressions filled in: a string that is one expression takes the expression's
 * value as it is (a number stays a number); `{$…}` inside a longer string is replaced by the value's text.
 */
export function fillExpressions(value: unknown, scope: ExpressionScope): unknown {
  if (typeof value === "string") {
    if (looksLikeExpression(value)) return scope.resolve(parseExpression(value));
    const embedded = embeddedExpressions(value);
    if (embedded.length === 0) return value;
    let text = "";
    let at = 0;
    for (const { start, end, expression } of embedded) {
      const found = scope.resolve(parseExpression(expression));
      text +=
        value.slice(at, start) + (typeof found === "object" && found !== null ? JSON.stringify(found) : String(found));
      at = end;
    }
    return text + value.slice(at);
  }
  if (Array.isArray(value)) return value.map((item) => fillExpressions(item, scope));
  if (value !== null && typeof value === "object") {
    const copy: Record<string, unknown> = Object.create(null);
    for (const [key, item] of Object.entries(value)) copy[key] = fillExpressions(item, scope);
    return copy;
  }
  return value;
}

// ---- Simple conditions ----------------------------------------------------------------------------------------

type Token =
  | { type: "literal"; value: unknown }
  | { type: "expression"; text: string }
  | { type: "operator"; value: string }
  | { type: "name"; value: string };

const OPERATORS = ["==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "[", "]", "."];
/** Characters that end a runtime expression inside a condition. */
const EXPRESSION_END = /[\s=!<>&|()[\]]/;

function tokenize(condition: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  const fail = (why: string): never => {
    throw new ExpressionError(`the condition "${condition}" does not parse: ${why} at character ${index + 1}`);
  };
  while (index < condition.length) {
    const char = condition[index]!;
    if (/\s/.test(char)) {
      index++;
      continue;
    }
    if (char === "'") {
      let text = "";
      index++;
      for (;;) {
        if (index >= condition.length) fail("a string is not closed with '");
        if (condition[index] === "'") {
          if (condition[index + 1] === "'") {
            text += "'";
            index += 2;
            continue;
          }
          index++;
          break;
        }
        text += condition[index++];
      }
      tokens.push({ type: "literal", value: text });
      continue;
    }
    if (char === "$") {
      let end = index + 1;
      while (end < condition.length && !EXPRESSION_END.test(condition[end]!)) end++;
      tokens.push({ type: "expression", text: condition.slice(index, end) });
      index = end;
      continue;
    }
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(condition.slice(index));
    if (number && (char !== "-" || tokens.length === 0 || tokens.at(-1)!.type === "operator")) {
      tokens.push({ type: "literal", value: Number(number[0]) });
      index += number[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(condition.slice(index));
    if (word) {
      const value = word[0];
      if (value === "true" || value === "false") tokens.push({ type: "literal", value: value === "true" });
      else if (value === "null") tokens.push({ type: "literal", value: null });
      else tokens.push({ type: "name", value });
      index += value.length;
      continue;
    }
    const operator = OPERATORS.find((candidate) => condition.startsWith(candidate, index));
    if (!operator) fail(`"${char}" is not allowed`);
    tokens.push({ type: "operator", value: operator! });
    index += operator!.length;
  }
  return tokens;
}

/** A parsed condition: evaluate it against a scope as often as needed. */
export type Condition =
  | { type: "literal"; value: unknown }
  | { type: "expression"; expression: Expression }
  | { type: "not"; operand: Condition }
  | { type: "binary"; operator: string; left: Condition; right: Condition }
  | { type: "member"; object: Condition; key: string | number };

/**
 * Parses a simple condition (Arazzo's `simple` criterion type): literals (`true`, `false`, `null`, numbers, 'strings'
 * with '' for a quote), runtime expressions, `== != < <= > >=`, `! && ||`, parentheses, `[index]` and `.property`.
 */
export function parseCondition(condition: string): Condition {
  const tokens = tokenize(condition);
  let at = 0;
  const fail = (why: string): never => {
    throw new ExpressionError(`the condition "${condition}" does not parse: ${why}`);
  };
  const peek = () => tokens[at];
  const isOperator = (value: string) => {
    const token = peek();
    return token?.type === "operator" && token.value === value;
  };
  const primary = (): Condition => {
    const token = tokens[at++];
    if (!token) return fail("it ends where a value was expected");
    if (token.type === "literal") return { type: "literal", value: token.value };
    if (token.type === "expression") return { type: "expression", expression: parseExpression(token.text) };
    if (token.type === "operator" && token.value === "(") {
      const inner = or();
      if (!isOperator(")")) fail("a ( is not closed");
      at++;
      return inner;
    }
    return fail(`"${token.value}" is not a value`);
  };
  const member = (): Condition => {
    let node = primary();
    for (;;) {
      if (isOperator("[")) {
        at++;
        const index = tokens[at++];
        const key = index?.type === "literal" ? index.value : undefined;
        if (typeof key !== "number" && typeof key !== "string") return fail("[ takes a number or a 'string'");
        if (!isOperator("]")) fail("a [ is not closed");
        at++;
        node = { type: "member", object: node, key };
      } else if (isOperator(".")) {
        at++;
        const name = tokens[at++];
        if (name?.type !== "name") return fail(". takes a property name");
        node = { type: "member", object: node, key: name.value };
      } else return node;
    }
  };
  const unary = (): Condition => {
    if (isOperator("!")) {
      at++;
      return { type: "not", operand: unary() };
    }
    return member();
  };
  const comparison = (): Condition => {
    const left = unary();
    const token = peek();
    if (token?.type === "operator" && ["==", "!=", "<", "<=", ">", ">="].includes(token.value)) {
      at++;
      return { type: "binary", operator: token.value, left, right: unary() };
    }
    return left;
  };
  const and = (): Condition => {
    let left = comparison();
    while (isOperator("&&")) {
      at++;
      left = { type: "binary", operator: "&&", left, right: comparison() };
    }
    return left;
  };
  const or = (): Condition => {
    let left = and();
    while (isOperator("||")) {
      at++;
      left = { type: "binary", operator: "||", left, right: and() };
    }
    return left;
  };
  if (tokens.length === 0) fail("it is empty");
  const parsed = or();
  const rest = tokens[at];
  if (rest)
    fail(`"${rest.type === "expression" ? rest.text : String(rest.value)}" follows where the condition should end`);
  return parsed;
}

/** Every runtime expression a condition reads. */
export function conditionExpressions(condition: Condition): Expression[] {
  switch (condition.type) {
    case "expression":
      return [condition.expression];
    case "not":
      return conditionExpressions(condition.operand);
    case "binary":
      return [...conditionExpressions(condition.left), ...conditionExpressions(condition.right)];
    case "member":
      return conditionExpressions(condition.object);
    default:
      return [];
  }
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/** Loose equality as the grammar asks: numbers by value (a numeric string too), strings case-insensitively. */
function looselyEqual(left: unknown, right: unknown): boolean {
  if (typeof left === "string" && typeof right === "string") return left.toLowerCase() === right.toLowerCase();
  if (typeof left === "number" || typeof right === "number") {
    const a = asNumber(left);
    const b = asNumber(right);
    return a !== undefined && b !== undefined && a === b;
  }
  if (left === null || right === null || typeof left !== "object" || typeof right !== "object") return left === right;
  return JSON.stringify(left) === JSON.stringify(right);
}

function compare(operator: string, left: unknown, right: unknown): boolean {
  const a = asNumber(left);
  const b = asNumber(right);
  let order: number;
  if (a !== undefined && b !== undefined) order = a - b;
  else if (typeof left === "string" && typeof right === "string")
    order = left.toLowerCase() < right.toLowerCase() ? -1 : left.toLowerCase() > right.toLowerCase() ? 1 : 0;
  else return false;
  return operator === "<" ? order < 0 : operator === "<=" ? order <= 0 : operator === ">" ? order > 0 : order >= 0;
}

/** Evaluates a parsed condition; what it names but is absent reads as `undefined` (a comparison with it is false). */
export function evaluateCondition(condition: Condition, scope: ExpressionScope): unknown {
  switch (condition.type) {
    case "literal":
      return condition.value;
    case "expression":
      try {
        return scope.resolve(condition.expression);
      } catch (error) {
        if (error instanceof ExpressionError) return undefined;
        throw error;
      }
    case "not":
      return !truthy(evaluateCondition(condition.operand, scope));
    case "member":
      return valueAt(evaluateCondition(condition.object, scope), [String(condition.key)]);
    case "binary": {
      if (condition.operator === "&&")
        return truthy(evaluateCondition(condition.left, scope)) && truthy(evaluateCondition(condition.right, scope));
      if (condition.operator === "||")
        return truthy(evaluateCondition(condition.left, scope)) || truthy(evaluateCondition(condition.right, scope));
      const left = evaluateCondition(condition.left, scope);
      const right = evaluateCondition(condition.right, scope);
      if (condition.operator === "==") return looselyEqual(left, right);
      if (condition.operator === "!=") return !looselyEqual(left, right);
      return compare(condition.operator, left, right);
    }
  }
}

export function truthy(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== "";
}
