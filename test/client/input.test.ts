import { describe, expect, test } from "vitest";
import { InvalidInputError } from "../../src/index.ts";
import { checkKnownKeys, checkWholeNumber, describeValue } from "../../src/input.ts";

describe("describeValue", () => {
  test("shows strings quoted and cut at 40 characters, other values by kind", () => {
    expect(describeValue("acme")).toBe('"acme"');
    expect(describeValue("x".repeat(50))).toBe(`"${"x".repeat(40)}…"`);
    expect(describeValue(42)).toBe("number 42");
    expect(describeValue(false)).toBe("boolean false");
    expect(describeValue(undefined)).toBe("nothing");
    expect(describeValue(null)).toBe("null");
    expect(describeValue([1])).toBe("an array");
    expect(describeValue({ a: 1 })).toBe("an object");
    expect(describeValue(() => 1)).toBe("a function");
  });
});

describe("checkWholeNumber", () => {
  test("returns a whole number in range, and names the input otherwise", () => {
    expect(checkWholeNumber(3, "retry.attempts", 1, 10)).toBe(3);
    for (const bad of [0, 11, 1.5, "3", Number.NaN]) {
      const thrown = (() => {
        try {
          checkWholeNumber(bad, "retry.attempts", 1, 10);
        } catch (error) {
          return error;
        }
      })();
      expect(thrown).toBeInstanceOf(InvalidInputError);
      expect(thrown).toMatchObject({ input: "retry.attempts" });
      expect((thrown as Error).message).toMatch(/retry.attempts must be a whole number from 1 to 10, got /);
    }
    expect(() => checkWholeNumber(-1, "maxItems", 0)).toThrow(
      "maxItems must be a whole number of at least 0, got number -1",
    );
  });
});

describe("checkKnownKeys", () => {
  test("refuses a key outside the list, naming it and the known ones", () => {
    expect(() => checkKnownKeys({ a: 1, b: 2 }, ["a", "b"], "options")).not.toThrow();
    expect(() => checkKnownKeys({ a: 1, tries: 2 }, ["a"], "retry", "retry")).toThrow(
      'retry has unknown option "tries"; known: a',
    );
    expect(() => checkKnownKeys({ apikey: "k" }, ["apiKey"], "createPartnerClient() options")).toThrow(
      expect.objectContaining({ input: "apikey" }),
    );
  });
});
