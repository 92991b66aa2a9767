/**
 * Whole requests for an operation, generated from its contract: valid ones (every parameter and the body
 * valid) and invalid ones (exactly one part broken: the body, one parameter, or a required header missing).
 */
import fc from "fast-check";
import { followRefs } from "partner-api-devkit/cli";
import { invalidValue, validValue } from "./arbitraries.ts";
import type { ContractValidator, Operation, Parameter, Schema } from "./contract.ts";
import type { CallInput } from "./http.ts";

export interface GeneratedRequest {
  input: CallInput;
  /** What was broken, for invalid requests ("" for valid ones). */
  broken: string;
}

/**
 * Path parameters without a pattern are drawn from URL-unreserved characters: a "/" or ".." in a segment
 * changes which route the URL names, which is routing, not the contract under test.
 */
const SAFE_SEGMENT = /^[A-Za-z0-9_-]{1,24}$/;

function resolved(document: unknown, parameter: Parameter): Schema {
  return followRefs<Schema>(document, parameter.schema);
}

function validParameter(document: unknown, parameter: Parameter): fc.Arbitrary<string> {
  const schema = resolved(document, parameter);
  if (parameter.in === "path" && schema.type === "string" && !schema.pattern && !schema.enum && !schema.format) {
    return fc.stringMatching(SAFE_SEGMENT).filter((s) => s.length >= (schema.minLength ?? 0));
  }
  if (parameter.in === "header" && schema.type === "string" && !schema.pattern && !schema.enum) {
    return fc.stringMatching(/^[!-~]{1,24}$/);
  }
  return validValue(document, schema, parameter.schemaPointer).map(String);
}

/** Text that the parameter's schema rejects, once Prism has coerced it to the schema's type. */
function invalidParameter(document: unknown, parameter: Parameter): fc.Arbitrary<string> | undefined {
  const schema = resolved(document, parameter);
  // Header values keep no surrounding spaces on the wire, so draw visible ASCII only.
  const text =
    parameter.in === "header" ? fc.stringMatching(/^[!-~]{1,30}$/) : fc.string({ minLength: 1, maxLength: 30 });
  if (schema.type === "integer" || schema.type === "number") {
    return fc.oneof(
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,8}$/),
      ...(schema.type === "integer"
        ? [fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: 1, max: 9 })).map(([i, f]) => `${i}.${f}`)]
        : []),
    );
  }
  if (schema.enum) return text.filter((s) => !(schema.enum as unknown[]).includes(s));
  if (typeof schema.pattern === "string") {
    const regex = new RegExp(schema.pattern);
    return text.filter((s) => !regex.test(s));
  }
  return undefined;
}

function parametersArb(document: unknown, op: Operation): fc.Arbitrary<Record<string, string>> {
  const model: Record<string, fc.Arbitrary<string>> = {};
  const required: string[] = [];
  for (const parameter of op.parameters) {
    const key = `${parameter.in}:${parameter.name}`;
    model[key] = validParameter(document, parameter);
    if (parameter.required) required.push(key);
  }
  return fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Record<string, string>>;
}

function toInput(_op: Operation, values: Record<string, string>, body: { value: unknown } | undefined): CallInput {
  const input: CallInput = { pathParams: {}, query: {}, headers: {}, companyId: null };
  for (const [key, value] of Object.entries(values)) {
    const [where, name] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
    if (where === "path") input.pathParams![name] = value;
    else if (where === "query") input.query![name] = value;
    else if (where === "header" && name === "X-Company-Id") input.companyId = value;
    else if (where === "header") input.headers![name] = value;
  }
  if (body) input.body = body.value;
  return input;
}

export function hasInput(op: Operation): boolean {
  return op.parameters.length > 0 || op.requestBody !== undefined;
}

export function validRequest(
  document: unknown,
  validator: ContractValidator,
  op: Operation,
): fc.Arbitrary<GeneratedRequest> {
  const body = op.requestBody
    ? validValue(document, { $ref: op.requestBody.schemaPointer }, op.requestBody.schemaPointer)
        .filter((value) => validator.at(op.requestBody!.schemaPointer)(value))
        .map((value) => ({ value }))
    : fc.constant(undefined);
  return fc
    .tuple(parametersArb(document, op), body)
    .map(([values, b]) => ({ input: toInput(op, values, b), broken: "" }));
}

export function invalidRequest(
  document: unknown,
  validator: ContractValidator,
  op: Operation,
): fc.Arbitrary<GeneratedRequest> | undefined {
  const valid = validRequest(document, validator, op);
  const options: fc.WeightedArbitrary<GeneratedRequest>[] = [];
  let bodyOption: fc.Arbitrary<GeneratedRequest> | undefined;
  if (op.requestBody) {
    const pointer = op.requestBody.schemaPointer;
    const bad = invalidValue(document, { $ref: pointer }, pointer);
    if (bad) {
      bodyOption = fc
        .tuple(
          valid,
          bad.filter((value) => !validator.at(pointer)(value)),
        )
        .map(([request, value]) => ({
          input: { ...request.input, body: value },
          broken: "body",
        }));
    }
  }
  for (const parameter of op.parameters) {
    const bad = invalidParameter(document, parameter);
    const key = parameter.name;
    if (bad) {
      options.push({
        weight: 1,
        arbitrary: fc.tuple(valid, bad).map(([request, value]) => {
          const input: CallInput = {
            ...request.input,
            pathParams: { ...request.input.pathParams },
            query: { ...request.input.query },
          };
          if (parameter.in === "path") input.pathParams![key] = value;
          else if (parameter.in === "query") input.query![key] = value;
          else if (parameter.name === "X-Company-Id") input.companyId = value;
          else input.headers = { ...input.headers, [key]: value };
          return { input, broken: `${parameter.in} ${key}` };
        }),
      });
    }
    if (parameter.in === "header" && parameter.required) {
      options.push({
        weight: 1,
        arbitrary: valid.map((request) => {
          const { [key]: _dropped, ...headers } = request.input.headers ?? {};
          const input: CallInput = { ...request.input, headers };
          if (parameter.name === "X-Company-Id") input.companyId = null;
          return { input, broken: `header ${key} missing` };
        }),
      });
    }
  }
  // The body has the most rules: it gets as many draws as all the parameter breakages together.
  if (bodyOption) options.push({ weight: Math.max(1, options.length), arbitrary: bodyOption });
  return options.length > 0 ? fc.oneof(...options) : undefined;
}
