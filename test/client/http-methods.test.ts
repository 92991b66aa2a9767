import { describe, expect, it } from "vitest";
import { HTTP_METHODS, isHttpMethod } from "../../src/http-methods.ts";

describe("HTTP_METHODS", () => {
  it("holds the eight operation keys of an OpenAPI 3.1 path item, lowercase, each once", () => {
    expect([...HTTP_METHODS].sort()).toEqual(["delete", "get", "head", "options", "patch", "post", "put", "trace"]);
    expect(new Set(HTTP_METHODS).size).toBe(HTTP_METHODS.length);
  });

  it("isHttpMethod accepts exactly those keys, not the other path-item fields or other cases", () => {
    for (const method of HTTP_METHODS) expect(isHttpMethod(method)).toBe(true);
    for (const key of ["parameters", "summary", "servers", "$ref", "GET", "x-internal", ""]) {
      expect(isHttpMethod(key)).toBe(false);
    }
  });
});
