/**
 * The schema-to-arbitrary generator behind the property tests, checked against Ajv: what it calls valid is
 * valid, what it calls invalid is invalid (before any filtering), it covers every part of a request, and it
 * refuses keywords it does not understand.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { invalidValue, UnsupportedSchemaError, validValue } from "./support/arbitraries.ts";
import { createValidator, listOperations, loadDocument } from "./support/contract.ts";
import { hasInput, invalidRequest, validRequest } from "./support/requests.ts";

const document = loadDocument();
/** The contract's own ULID rule (either letter case, as the ULID standard reads them). */
const ulidPattern = new RegExp((document.components.schemas.Ulid as { pattern: string }).pattern);
const validator = createValidator(document);
const operations = listOperations(document);
const SAMPLES = 150;
const SEED = 7;

const bodies = operations.flatMap((op) =>
  op.requestBody ? [[op.operationId, op.requestBody.schemaPointer] as const] : [],
);
const schemaNames = Object.keys(document.components.schemas as object).filter((name) => !/Event$|Payload$/.test(name));

describe("validValue", () => {
  it.each(bodies)("every %s body it generates is valid (%s)", (_, pointer) => {
    const samples = fc.sample(validValue(document, { $ref: pointer }, pointer), { seed: SEED, numRuns: SAMPLES });
    const invalid = samples.filter((value) => !validator.at(pointer)(value));
    // oneOf exclusivity is not modelled, so allow a few; request bodies have none and must all be valid.
    expect(invalid.slice(0, 3)).toEqual([]);
  });

  it.each(schemaNames)("most values generated for components/schemas/%s are valid", (name) => {
    const pointer = `#/components/schemas/${name}`;
    const samples = fc.sample(validValue(document, { $ref: pointer }, pointer), { seed: SEED, numRuns: 60 });
    const valid = samples.filter((value) => validator.at(pointer)(value)).length;
    expect(valid / samples.length).toBeGreaterThan(0.5);
  });

  it("honours if/then: a false switch brings the field it makes required", () => {
    const pointer = "#/components/schemas/SpendSettings";
    const samples = fc.sample(validValue(document, { $ref: pointer }, pointer), {
      seed: SEED,
      numRuns: SAMPLES,
    }) as Record<string, unknown>[];
    const limited = samples.filter((s) => s.isUnlimitedLimitPerTransaction === false);
    expect(limited.length).toBeGreaterThan(10);
    expect(limited.every((s) => "limitPerTransaction" in s)).toBe(true);
  });

  it("refuses a keyword outside its subset, naming it and where it is", () => {
    expect(() => validValue(document, { type: "string", not: { const: "x" } }, "#/made/up")).toThrow(
      UnsupportedSchemaError,
    );
    expect(() => validValue(document, { type: "string", not: { const: "x" } }, "#/made/up")).toThrow(
      /#\/made\/up.*"not"/,
    );
    expect(() => validValue(document, { type: "string", format: "ipv6" }, "#/x")).toThrow(/format "ipv6"/);
  });
});

describe("invalidValue", () => {
  it.each(bodies)("every %s body it generates breaks the contract (%s)", (_, pointer) => {
    const arb = invalidValue(document, { $ref: pointer }, pointer);
    expect(arb).toBeDefined();
    const samples = fc.sample(arb!, { seed: SEED, numRuns: SAMPLES });
    const accepted = samples.filter((value) => validator.at(pointer)(value));
    expect(accepted.length / samples.length, JSON.stringify(accepted.slice(0, 3))).toBeLessThan(0.05);
  });

  it("has nothing to offer for a schema that accepts anything", () => {
    expect(invalidValue(document, {}, "#/any")).toBeUndefined();
  });
});

describe("generated requests", () => {
  it.each(operations.filter(hasInput).map((op) => [op.operationId, op] as const))(
    "%s: invalid requests break every part that can be broken",
    (_, op) => {
      const arb = invalidRequest(document, validator, op);
      expect(arb).toBeDefined();
      const broken = new Set(
        fc.sample(arb!, { seed: SEED, numRuns: 300 }).map((r) => r.broken.replace(/ missing$/, "")),
      );
      const expected = new Set<string>();
      if (op.requestBody) expected.add("body");
      for (const p of op.parameters) {
        const schema = JSON.stringify(p.schema);
        if (p.in === "header" || schema.includes("$ref") || schema.includes("integer") || schema.includes("enum"))
          expected.add(`${p.in} ${p.name}`);
      }
      expect([...broken].sort()).toEqual([...expected].sort());
    },
  );

  it.each(operations.filter(hasInput).map((op) => [op.operationId, op] as const))(
    "%s: valid requests carry every required parameter",
    (_, op) => {
      for (const { input } of fc.sample(validRequest(document, validator, op), { seed: SEED, numRuns: 50 })) {
        for (const p of op.parameters.filter((x) => x.required)) {
          if (p.in === "path") expect(input.pathParams?.[p.name]).toBeTypeOf("string");
          if (p.name === "X-Company-Id") expect(input.companyId).toMatch(ulidPattern);
        }
      }
    },
  );
});
