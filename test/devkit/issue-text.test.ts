/** The reader's words for a validator's error (devkit/src/contract/issue-text.ts), against real Ajv errors. */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { issueWords, rulePointer, shown, shownErrors } from "../../devkit/src/contract/issue-text.ts";

const ajv = new Ajv2020.default({ strict: false, allErrors: true, verbose: true });
addFormats.default(ajv);

function words(schema: object, value: unknown): string[] {
  const validate = ajv.compile(schema);
  expect(validate(value)).toBe(false);
  return shownErrors(validate.errors ?? []).map((error) => `${error.instancePath} ${issueWords(error)}`);
}

describe("issueWords", () => {
  it("names the value received and what is allowed, for each kind of rule", () => {
    expect(words({ enum: ["start", "submit"] }, "begin")).toEqual([' got "begin"; allowed: "start", "submit"']);
    expect(words({ title: "ULID", pattern: "^[0-9A-Z]{26}$" }, "x")).toEqual([
      ' got "x"; allowed: a ULID (the pattern ^[0-9A-Z]{26}$)',
    ]);
    expect(words({ format: "date" }, "17/03/1984")).toEqual([
      ' got "17/03/1984"; allowed: a date as YYYY-MM-DD (2026-03-17)',
    ]);
    expect(words({ type: "integer" }, "abc")).toEqual([' got "abc" (a string); allowed: an integer']);
    expect(words({ maximum: 10 }, 11)).toEqual([" got 11; allowed: 10 or less"]);
    expect(words({ type: "object", maxProperties: 0 }, { a: 1 })).toEqual([
      ' got {"a":1}; allowed: only an empty object {}',
    ]);
    expect(words({ type: "object", required: ["name"] }, {})).toEqual([
      " must have the property name (it is required and was not sent)",
    ]);
  });

  it("drops the if/then summary and keeps the branch's own error", () => {
    const schema = {
      type: "object",
      properties: { unlimited: { type: "boolean" }, limit: { type: "number" } },
      if: { properties: { unlimited: { const: false } }, required: ["unlimited"] },
      then: { required: ["limit"] },
    };
    const found = words(schema, { unlimited: false });
    expect(found).toEqual([" must have the property limit (it is required when unlimited is false and was not sent)"]);
    expect(found.join()).not.toMatch(/"then"/);
  });

  it("says which of the fields of a oneOf were sent", () => {
    const schema = { type: "object", oneOf: [{ required: ["name"] }, { required: ["arazzo"] }] };
    expect(words(schema, { name: 1, arazzo: 2 })).toEqual([
      " has more than one of name, arazzo; allowed: exactly one of them",
    ]);
    expect(words(schema, {})).toEqual([" has none of name, arazzo; allowed: exactly one of them"]);
  });
});

describe("shown and rulePointer", () => {
  it("cut a long value and drop the validator's internal base", () => {
    expect(shown("x".repeat(100))).toBe(`"${"x".repeat(59)}… (102 characters)`);
    expect(shown(undefined)).toBe("nothing");
    expect(rulePointer("https://sandbox.invalid/partner.json#/components/schemas/Ulid/pattern")).toBe(
      "#/components/schemas/Ulid/pattern",
    );
  });
});
