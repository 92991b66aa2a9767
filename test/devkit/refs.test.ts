import { followRefs, followRefsFrom, isObject, lookup } from "partner-api-devkit/cli";
import { describe, expect, it } from "vitest";

const doc = {
  components: {
    schemas: {
      "a/b": { type: "string" },
      Alias: { $ref: "#/components/schemas/a~1b" },
      Loop: { $ref: "#/components/schemas/Loop" },
    },
    list: [{ name: "first" }],
  },
};

describe("local $refs", () => {
  it("looks up a pointer, unescaping ~1 and ~0, into objects and arrays", () => {
    expect(lookup(doc, "#/components/schemas/a~1b")).toEqual({ type: "string" });
    expect(lookup(doc, "#/components/list/0/name")).toBe("first");
  });

  it("names a dangling or external reference", () => {
    expect(() => lookup(doc, "#/components/schemas/Nope")).toThrow('$ref "#/components/schemas/Nope" does not resolve');
    expect(() => lookup(doc, "other.yaml#/x")).toThrow('external $ref "other.yaml#/x"');
  });

  it("follows a chain to its end, leaves other values alone, and stops a loop", () => {
    expect(followRefs(doc, { $ref: "#/components/schemas/Alias" })).toEqual({ type: "string" });
    expect(followRefs(doc, { type: "integer" })).toEqual({ type: "integer" });
    expect(followRefs(doc, undefined)).toBeUndefined();
    expect(() => followRefs(doc, { $ref: "#/components/schemas/Loop" })).toThrow(/chain too long/);
  });

  it("says where the end of a chain lives, or where the value itself sits when it is no reference", () => {
    expect(followRefsFrom(doc, { $ref: "#/components/schemas/Alias" }, "#/paths/x")).toEqual({
      value: { type: "string" },
      pointer: "#/components/schemas/a~1b",
    });
    expect(followRefsFrom(doc, { type: "integer" }, "#/paths/x")).toEqual({
      value: { type: "integer" },
      pointer: "#/paths/x",
    });
    expect(() => followRefsFrom(doc, { $ref: "#/nope" }, "")).toThrow('$ref "#/nope" does not resolve');
  });

  it("tells objects from arrays and null", () => {
    expect([isObject({}), isObject([]), isObject(null), isObject("x")]).toEqual([true, false, false, false]);
  });
});
