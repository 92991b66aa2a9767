/**
 * The coverage phase's boundary values (devkit/src/conformance/boundaries.ts) over small schemas: each boundary
 * is produced, every positive value is one the schema accepts and every negative one it refuses (judged by Ajv
 * with ajv-formats, as the router judges requests), and the same seed gives the same values. Then the cases the
 * phase builds for the contract's own operations (coverage.ts).
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { shippedDocuments } from "../../devkit/src/arazzo/document.ts";
import { type Boundary, pickBoundaries, schemaBoundaries } from "../../devkit/src/conformance/boundaries.ts";
import { type CaseContext, positiveParts } from "../../devkit/src/conformance/cases.ts";
import { coverageCases } from "../../devkit/src/conformance/coverage.ts";
import { linkSources, workflowBodySources } from "../../devkit/src/conformance/links.ts";
import { sandboxRouter } from "../../devkit/src/contract/documents.ts";
import { ContractRouter } from "../../devkit/src/contract/router.ts";
import contract from "../../generated/openapi.json" with { type: "json" };

const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);

function judged(schema: Record<string, unknown>, seed = 1): Boundary[] {
  const list = schemaBoundaries({}, schema, { seed });
  const validate = ajv.compile(schema);
  for (const boundary of list)
    expect(validate(boundary.value), `${boundary.description}: ${JSON.stringify(boundary.value)}`).toBe(
      boundary.positive,
    );
  return list;
}

const scenarios = (list: Boundary[], positive: boolean) =>
  list.filter((boundary) => boundary.positive === positive).map((boundary) => boundary.scenario);

describe("boundary values of a schema", () => {
  it("strings: at minLength and maxLength and one inside each (accepted), one shorter and one longer (refused)", () => {
    const list = judged({ type: "string", minLength: 2, maxLength: 5 });
    const lengths = (positive: boolean) =>
      list
        .filter((boundary) => boundary.positive === positive && typeof boundary.value === "string")
        .map((boundary) => (boundary.value as string).length)
        .sort();
    expect(lengths(true)).toEqual([2, 3, 4, 5]);
    expect(lengths(false)).toEqual([1, 6]);
    expect(scenarios(list, false)).toEqual(
      expect.arrayContaining(["string_below_min_length", "string_above_max_length", "incorrect_type"]),
    );
  });

  it("numbers: at minimum and maximum, one past each; exclusive bounds: just inside, and the bound itself", () => {
    const integers = judged({ type: "integer", minimum: 1, maximum: 10 });
    expect(integers.filter((boundary) => boundary.positive).map((boundary) => boundary.value)).toEqual([1, 10]);
    expect(integers.filter((boundary) => !boundary.positive).map((boundary) => boundary.value)).toEqual([
      0,
      11,
      1.5,
      "text",
    ]);
    const exclusive = judged({ type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 });
    const inside = exclusive.filter((boundary) => boundary.positive).map((boundary) => boundary.value as number);
    expect(inside).toHaveLength(2);
    expect(inside[0]).toBeGreaterThan(0);
    expect(inside[1]).toBeLessThan(1);
    expect(1 - inside[1]!).toBeLessThan(1e-15);
    expect(exclusive.filter((boundary) => !boundary.positive).map((boundary) => boundary.value)).toEqual(
      expect.arrayContaining([0, 1]),
    );
    const integerExclusive = judged({ type: "integer", exclusiveMinimum: 3, exclusiveMaximum: 9 });
    expect(integerExclusive.filter((boundary) => boundary.positive).map((boundary) => boundary.value)).toEqual([4, 8]);
  });

  it("enums: each value, and one not in the enum; a const and another value", () => {
    const list = judged({ type: "string", enum: ["ASC", "DESC"] });
    expect(list.filter((boundary) => boundary.positive).map((boundary) => boundary.value)).toEqual(["ASC", "DESC"]);
    expect(scenarios(list, false)).toEqual(["invalid_enum_value", "incorrect_type"]);
    const numbers = judged({ enum: [1, 2, 3] });
    expect(numbers.find((boundary) => !boundary.positive)?.value).toBe(4);
    const constant = judged({ const: "fixed" });
    expect(scenarios(constant, true)).toEqual(["const_value"]);
    expect(scenarios(constant, false)).toEqual(["invalid_const"]);
  });

  it.each(["date", "date-time", "time", "email", "uri", "uuid", "hostname", "ipv4", "ipv6"])(
    "format %s: a valid value, and an invalid one",
    (format) => {
      const list = judged({ type: "string", format });
      expect(scenarios(list, true)).toEqual(["valid_value"]);
      expect(scenarios(list, false)).toEqual(["invalid_format", "incorrect_type"]);
    },
  );

  it("a ULID: 26 characters of its pattern; 25 and 27 made from the id in place, and one off the pattern", () => {
    const ulid = { type: "string", pattern: "^[0-7][0-9A-HJKMNP-TV-Z]{25}$", minLength: 26, maxLength: 26 };
    const list = judged(ulid);
    const positive = list.filter((boundary) => boundary.positive);
    expect(positive.map((boundary) => boundary.scenario)).toEqual(["minimum_length_string"]);
    expect(positive[0]!.value).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(scenarios(list, false)).toEqual([
      "string_below_min_length",
      "string_above_max_length",
      "invalid_pattern",
      "incorrect_type",
    ]);
    const id = "01JD8X4M6Q2V7R9T3W5Y0Z1A2B";
    const fromId = schemaBoundaries({}, ulid, { seed: 1, base: id });
    expect(fromId.find((boundary) => boundary.scenario === "string_below_min_length")?.value).toBe(id.slice(0, 25));
    expect(fromId.find((boundary) => boundary.scenario === "string_above_max_length")?.value).toBe(`${id}B`);
  });
});

describe("boundary values of a schema: objects, arrays, seeds and what cannot be built", () => {
  it("objects: only the required properties, each property at its boundaries, each required one missing, an extra one refused", () => {
    const schema = {
      type: "object",
      required: ["name", "kind"],
      additionalProperties: false,
      properties: {
        name: { type: "string", maxLength: 3 },
        kind: { enum: ["a", "b"] },
        note: { type: "string" },
        count: { type: "integer", minimum: 0 },
      },
    };
    const base = { name: "abc", kind: "a", note: "n" };
    const validate = ajv.compile(schema);
    const list = schemaBoundaries({}, schema, { seed: 3, base, isValid: (value) => validate(value) });
    const at = (scenario: string) =>
      list.filter((boundary) => boundary.scenario === scenario).map((boundary) => boundary.at);
    expect(list.find((boundary) => boundary.scenario === "object_only_required")?.value).toEqual({
      name: "abc",
      kind: "a",
    });
    expect(at("object_missing_required_property")).toEqual(["/name", "/kind"]);
    expect(at("string_above_max_length")).toEqual(["/name"]);
    expect(list.find((boundary) => boundary.scenario === "string_above_max_length")?.value).toEqual({
      ...base,
      name: "abcc",
    });
    expect(at("enum_value")).toEqual(["/kind", "/kind"]);
    expect(at("minimum_value")).toEqual(["/count"]);
    expect(at("value_below_minimum")).toEqual(["/count"]);
    expect(at("object_unexpected_properties")).toHaveLength(1);
    for (const boundary of list) expect(validate(boundary.value), boundary.description).toBe(boundary.positive);
    // A property whose value is chased from an answer keeps it in positive cases; its negative cases stay.
    const fixed = schemaBoundaries({}, schema, { seed: 3, base, fixed: new Set(["kind"]) });
    expect(fixed.filter((boundary) => boundary.at === "/kind" && boundary.positive)).toEqual([]);
    expect(fixed.some((boundary) => boundary.at === "/kind" && !boundary.positive)).toBe(true);
  });

  it("arrays: at minItems and maxItems, one past each, and each boundary of the items", () => {
    const list = judged({ type: "array", minItems: 1, maxItems: 3, items: { type: "string", enum: ["x", "y"] } });
    expect(scenarios(list, true)).toEqual(
      expect.arrayContaining(["minimum_items_array", "maximum_items_array", "enum_value"]),
    );
    expect(scenarios(list, false)).toEqual(
      expect.arrayContaining(["array_below_min_items", "array_above_max_items", "invalid_enum_value"]),
    );
  });

  it("is deterministic per seed: the same seed gives the same values; another seed other values of the same kinds", () => {
    const schema = {
      type: "object",
      required: ["code", "text"],
      properties: { code: { type: "string", pattern: "^[A-Z]{3}[0-9]{2}$" }, text: { type: "string", minLength: 4 } },
    };
    const first = schemaBoundaries({}, schema, { seed: 7 });
    expect(schemaBoundaries({}, schema, { seed: 7 })).toEqual(first);
    const other = schemaBoundaries({}, schema, { seed: 8 });
    expect(other).not.toEqual(first);
    expect(other.map((boundary) => boundary.scenario)).toEqual(first.map((boundary) => boundary.scenario));
  });

  it("what it cannot build it leaves out, never crashes nor mislabels: self-reference, lookarounds, huge lengths", () => {
    const document = {
      components: {
        schemas: {
          Node: {
            type: "object",
            required: ["name"],
            properties: {
              name: { type: "string", maxLength: 4 },
              children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
            },
          },
          Loop: { allOf: [{ $ref: "#/components/schemas/Loop" }, { type: "string", minLength: 2 }] },
        },
      },
    };
    const tree = schemaBoundaries(document, { $ref: "#/components/schemas/Node" }, { seed: 1 });
    expect(tree.some((boundary) => boundary.at === "/name" && boundary.scenario === "string_above_max_length")).toBe(
      true,
    );
    expect(tree.some((boundary) => boundary.at.startsWith("/children/0/"))).toBe(true);
    expect(schemaBoundaries(document, { $ref: "#/components/schemas/Loop" }, { seed: 1 }).length).toBeGreaterThan(0);
    // fast-check cannot generate from a lookahead: no matching value, the other boundaries still there.
    const lookahead = judged({ type: "string", pattern: "^(?=.*[0-9])[a-z0-9]{4}$" });
    expect(scenarios(lookahead, false)).toEqual(expect.arrayContaining(["invalid_pattern", "incorrect_type"]));
    // Past MAX_BOUNDARY_STRING no string is built: only the wrong type is left.
    expect(scenarios(judged({ type: "string", minLength: 10_000 }), false)).toEqual(["incorrect_type"]);
    expect(scenarios(judged({ type: "string", minLength: 10_000 }), true)).toEqual([]);
  });

  it("picks every scenario once before any twice, and never more than the limit", () => {
    const list = judged({ type: "string", enum: ["a", "b", "c", "d"] });
    const picked = pickBoundaries(list, 3);
    expect(picked.map((boundary) => boundary.scenario)).toEqual(["enum_value", "invalid_enum_value", "incorrect_type"]);
    expect(pickBoundaries(list, 100)).toHaveLength(list.length);
  });
});

describe("the coverage cases of the contract's operations", () => {
  const document = contract as unknown as Record<string, unknown>;
  const router = new ContractRouter([{ api: "partner", document }]);
  const operationOf = (id: string) => router.operations.find((operation) => operation.operationId === id)!;
  const context: CaseContext = {
    baseUrl: "http://127.0.0.1:9",
    document,
    router,
    seed: 1,
    keys: { main: "key" },
    // As verify reads them: the contract's links, and the body fields its workflows fill from answers.
    sources: [
      ...linkSources(document, router.operations),
      ...workflowBodySources(
        [...shippedDocuments(sandboxRouter()).values()].map((shipped) => shipped.document),
        new Set(router.operations.map((operation) => operation.operationId)),
      ),
    ],
  };
  const company = { name: "companyId", value: "01JD8X4M6Q2V7R9T3W5Y0Z1A2B", from: "listCompanies", strong: true };

  it("createCard: positive bodies valid and keeping the card holder found; negative ones invalid; at most the limit", () => {
    const operation = operationOf("createCard");
    const holder = { name: "cardHolderId", value: "01JD8X4M6Q2V7R9T3W5Y0Z1A2C", from: "x", strong: true };
    const uses = new Map([
      ["companyId", company],
      ["cardHolderId", holder],
    ]);
    const [valid] = positiveParts(context, operation, uses, 0);
    const cases = coverageCases(context, operation, valid!, 24);
    expect(cases.length).toBeLessThanOrEqual(24);
    const positives = cases.filter((item) => item.boundary.positive);
    expect(positives.length).toBeGreaterThan(0);
    expect(positives.length).toBeLessThanOrEqual(6);
    for (const { parts, boundary } of cases) {
      const issues = router.validateBody(operation, "application/json", parts.body);
      expect(issues.length === 0, parts.label).toBe(boundary.positive);
      expect(parts.headers["X-Company-Id"]).toBe(company.value);
      expect(parts.label).toMatch(/^coverage: body /);
    }
    for (const { parts } of positives) expect((parts.body as { cardHolderId: string }).cardHolderId).toBe(holder.value);
    expect(cases.map((item) => item.boundary.scenario)).toEqual(
      expect.arrayContaining([
        "string_above_max_length",
        "string_below_min_length",
        "object_missing_required_property",
      ]),
    );
    // One past maxLength is the card holder's id in place, one character longer.
    const longer = cases.find((item) => item.boundary.scenario === "string_above_max_length")!;
    expect((longer.parts.body as { cardHolderId: string }).cardHolderId).toBe(`${holder.value}C`);
    expect(coverageCases(context, operation, valid!, 24)).toEqual(cases);
  });

  it("listSpendingAccountTransactions: each enum value of its query parameters accepted, values outside refused", () => {
    const operation = operationOf("listSpendingAccountTransactions");
    const [valid] = positiveParts(context, operation, new Map([["companyId", company]]), 0);
    const cases = coverageCases(context, operation, valid!, 40);
    const queries = (positive: boolean) =>
      cases.filter((item) => item.boundary.positive === positive).map((item) => new URLSearchParams(item.parts.query));
    expect(
      queries(true)
        .map((query) => query.get("orderDirection"))
        .filter(Boolean),
    ).toEqual(["ASC", "DESC"]);
    expect(
      queries(false)
        .map((query) => query.get("orderDirection"))
        .filter(Boolean),
    ).toEqual(expect.arrayContaining(["not-one-of-the-values"]));
    expect(queries(false).map((query) => query.get("page"))).toEqual(expect.arrayContaining(["1.5", "text"]));
    for (const { parts, boundary } of cases) {
      const { issues } = router.validateParameters(operation, {
        path: parts.path,
        query: new URLSearchParams(parts.query),
        headers: { "x-company-id": company.value },
      });
      expect(issues.length === 0, parts.label).toBe(boundary.positive);
    }
  });
});
