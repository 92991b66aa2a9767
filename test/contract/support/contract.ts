/**
 * The bundled contract as the contract tests see it: its operations, their parameters, bodies and responses,
 * and a JSON Schema 2020-12 validator (Ajv) that compiles any schema of the document by pointer.
 */
import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { followRefs, followRefsFrom } from "partner-api-devkit/cli";
import { bundleJsonPath } from "../../../scripts/lib/paths.ts";
import { HTTP_METHODS, type HttpMethod } from "../../../src/http-methods.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = Record<string, any>;

const DOCUMENT_ID = "https://contract-tests.invalid/openapi.json";

export function loadDocument(): Record<string, any> {
  return JSON.parse(readFileSync(bundleJsonPath, "utf8"));
}

import { pointerSegment } from "partner-api-devkit/cli";

export { pointerSegment };

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: Schema;
  /** Where the parameter's schema lives, for the validator. */
  schemaPointer: string;
  example?: unknown;
}

export interface ResponseContent {
  mediaType: string;
  schemaPointer: string;
  examples: Record<string, unknown>;
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  path: string;
  parameters: Parameter[];
  /** Whether the operation carries the shared X-Company-Id header parameter. */
  companyScoped: boolean;
  secured: boolean;
  requestBody?: { required: boolean; mediaType: string; schemaPointer: string; examples: Record<string, unknown> };
  /** Status code → contents by media type (empty when the response has no body). */
  responses: Map<string, ResponseContent[]>;
}

function examplesOf(document: unknown, media: any): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, example] of Object.entries((media?.examples ?? {}) as Record<string, unknown>)) {
    const resolved = followRefs<{ value?: unknown }>(document, example);
    if (resolved && "value" in resolved) out[name] = resolved.value;
  }
  return out;
}

/** Every operation of the document, in document order. */
export function listOperations(document: Record<string, any>): Operation[] {
  const operations: Operation[] = [];
  const globalSecurity = (document.security ?? []) as unknown[];
  for (const [path, item] of Object.entries(document.paths as Record<string, any>)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const opPointer = `#/paths/${pointerSegment(path)}/${method}`;
      const rawParameters = [
        ...((item.parameters ?? []) as unknown[]).map((p, i) => ({
          p,
          at: `#/paths/${pointerSegment(path)}/parameters/${i}`,
        })),
        ...((op.parameters ?? []) as unknown[]).map((p, i) => ({ p, at: `${opPointer}/parameters/${i}` })),
      ];
      let companyScoped = false;
      const parameters: Parameter[] = rawParameters.map(({ p, at }) => {
        if ((p as any).$ref === "#/components/parameters/CompanyId") companyScoped = true;
        const { value, pointer } = followRefsFrom<any>(document, p, at);
        return {
          name: value.name,
          in: value.in,
          required: value.required === true,
          schema: value.schema,
          schemaPointer: `${pointer}/schema`,
          example: value.example,
        };
      });
      let requestBody: Operation["requestBody"];
      if (op.requestBody) {
        const { value, pointer } = followRefsFrom<any>(document, op.requestBody, `${opPointer}/requestBody`);
        const [mediaType, media] = Object.entries(value.content as Record<string, any>)[0]!;
        requestBody = {
          required: value.required === true,
          mediaType,
          schemaPointer: `${pointer}/content/${pointerSegment(mediaType)}/schema`,
          examples: examplesOf(document, media),
        };
      }
      const responses = new Map<string, ResponseContent[]>();
      for (const [status, raw] of Object.entries(op.responses as Record<string, unknown>)) {
        const { value, pointer } = followRefsFrom<any>(document, raw, `${opPointer}/responses/${status}`);
        responses.set(
          status,
          Object.entries((value.content ?? {}) as Record<string, any>).map(([mediaType, media]) => ({
            mediaType,
            schemaPointer: `${pointer}/content/${pointerSegment(mediaType)}/schema`,
            examples: examplesOf(document, media),
          })),
        );
      }
      const security = (op.security ?? globalSecurity) as unknown[];
      operations.push({
        operationId: op.operationId,
        method,
        path,
        parameters,
        companyScoped,
        secured: security.length > 0 && !security.some((s) => Object.keys(s as object).length === 0),
        requestBody,
        responses,
      });
    }
  }
  return operations;
}

export interface ContractValidator {
  /** A compiled validator for the schema at a pointer of the document. */
  at(pointer: string): ValidateFunction;
  /** Readable validation errors of `value` against the schema at `pointer` (empty when valid). */
  errors(pointer: string, value: unknown): string[];
}

/** Ajv 2020-12 with formats over the whole document, so `#/components/...` references resolve. */
export function createValidator(document: Record<string, any>): ContractValidator {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  // OpenAPI's numeric formats only annotate the type; they constrain nothing here.
  for (const format of ["int32", "int64", "float", "double"]) ajv.addFormat(format, true);
  ajv.addSchema(document, DOCUMENT_ID);
  const cache = new Map<string, ValidateFunction>();
  const at = (pointer: string): ValidateFunction => {
    let validate = cache.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      cache.set(pointer, validate);
    }
    return validate;
  };
  return {
    at,
    errors(pointer, value) {
      const validate = at(pointer);
      if (validate(value)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword}`);
    },
  };
}
