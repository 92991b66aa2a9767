import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ValidateFunction } from "ajv";

const DOCUMENT_ID = "https://contract.invalid/openapi.json";

/**
 * A JSON Schema 2020-12 validator over a bundled OpenAPI document: `validatorAt("#/components/schemas/Card")`
 * compiles the schema at that pointer, resolving its `#/components/...` references inside the document.
 */
export function createContractValidator(document: unknown) {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(document as object, DOCUMENT_ID);
  const cache = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string): ValidateFunction => {
    let validate = cache.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      cache.set(pointer, validate);
    }
    return validate;
  };
  return {
    validatorAt,
    /** Validation errors of `value` against the schema at `pointer`, as readable lines (empty when valid). */
    errorsAt(pointer: string, value: unknown): string[] {
      const validate = validatorAt(pointer);
      if (validate(value)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword}`);
    },
  };
}

/** Escapes one segment of a JSON pointer. */
export function pointerSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
