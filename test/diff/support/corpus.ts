/**
 * The fixture corpus's base document and runner: for every check family of oasdiff's list
 * (docs/BREAKING-CHANGES-EXAMPLES.md and checker/rules.go), a change that breaks and the nearest change that does
 * not, each as a base/head pair built from one small document. Each case names the check it must report and
 * whether that fails the gate (level error). Where this project reads a change differently from oasdiff on
 * purpose, the case says so. The cases live in test/diff/checks-*.test.ts, by subject.
 */
import { describe, expect, it } from "vitest";
import type { Change } from "../../../scripts/lib/diff/changes.ts";
import { findCheck } from "../../../scripts/lib/diff/registry.ts";
import { diffContracts } from "../../../scripts/lib/diff/report.ts";
import type { Document } from "../../../scripts/lib/diff/resolve.ts";

export type Any = any;

/** A small API with one of each thing the checks look at. */
export function baseDocument(): Any {
  return {
    openapi: "3.1.0",
    info: { title: "Corpus", version: "1.0.0" },
    security: [{ ApiKey: [] }],
    paths: {
      "/items": {
        post: {
          operationId: "createItem",
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/ItemInput" } } },
          },
          responses: {
            "201": {
              description: "Created",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } },
            },
            "422": { description: "Invalid" },
          },
        },
        get: {
          operationId: "listItems",
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } },
            { name: "status", in: "query", schema: { type: "string", enum: ["open", "closed"] } },
            { name: "X-Trace", in: "header", schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "Items",
              headers: {
                "X-Total": { required: true, schema: { type: "integer" } },
                "X-Hint": { schema: { type: "string" } },
              },
              content: {
                "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Item" } } },
              },
            },
          },
        },
      },
      "/items/{itemId}": {
        get: {
          operationId: "getItem",
          parameters: [{ name: "itemId", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": {
              description: "Item",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } },
            },
          },
        },
        delete: {
          operationId: "deleteItem",
          parameters: [{ name: "itemId", in: "path", required: true, schema: { type: "string" } }],
          responses: { "204": { description: "Deleted" } },
        },
      },
    },
    components: {
      securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "X-Api-Key" } },
      schemas: {
        ItemInput: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string", minLength: 1, maxLength: 64, pattern: "^[a-z]+$" },
            kind: { type: "string", enum: ["a", "b"] },
            size: { type: "integer", format: "int32", minimum: 0 },
            note: { type: "string" },
            id: { type: "string", readOnly: true },
            tags: { type: "array", items: { type: "string" }, maxItems: 10 },
          },
        },
        Item: {
          type: "object",
          required: ["id", "name"],
          properties: {
            id: { type: "string" },
            name: { type: "string", maxLength: 64 },
            kind: { type: "string", enum: ["a", "b"] },
            size: { type: "number" },
            note: { type: "string" },
            secret: { type: "string", writeOnly: true },
            owner: { $ref: "#/components/schemas/Owner" },
          },
        },
        Owner: {
          type: "object",
          required: ["login"],
          properties: { login: { type: "string" }, role: { type: "string", enum: ["admin", "user"] } },
        },
      },
    },
  };
}

export const schemas = (d: Any) => d.components.schemas;
export const input = (d: Any) => schemas(d).ItemInput.properties;
export const item = (d: Any) => schemas(d).Item.properties;
export const listParams = (d: Any) => d.paths["/items"].get.parameters;
/** Moves the `from` entry of `content` (application/json unless given) to another media type key. */
export function renameMedia(content: Any, type: string, from = "application/json"): void {
  content[type] = content[from];
  delete content[from];
}

export interface Case {
  name: string;
  mutate: (d: Any) => void;
  /** The check the change must be reported under. */
  check: string;
  /** Whether it fails the gate (level error). */
  breaking: boolean;
  /** Mutates the base instead, for cases about what the base said (deprecation, stability). */
  base?: (d: Any) => void;
}

export const TODAY = "2026-06-01";

export function run(testCase: Case): Change[] {
  const base = baseDocument();
  testCase.base?.(base);
  const head = structuredClone(base);
  testCase.mutate(head);
  return diffContracts(
    { document: base as Document, label: "base" },
    { document: head as Document, label: "head" },
    { today: TODAY },
  ).changes;
}

/** The corpus's suite for these families: each case reports its check, and each family has both kinds of case. */
export function corpusSuite(families: Record<string, Case[]>): void {
  describe("the fixture corpus: a breaking change and its nearest non-breaking one, per check family", () => {
    for (const [family, cases] of Object.entries(families)) {
      describe(family, () => {
        it.each(cases.map((testCase) => [testCase.name, testCase] as const))("%s", (_name, testCase) => {
          const changes = run(testCase);
          const errors = changes.filter((change) => change.level === "error");
          if (testCase.check === "none") expect(changes.filter((c) => c.check !== "version-changed")).toEqual([]);
          else {
            expect(findCheck(testCase.check), `${testCase.check} is a listed check`).toBeDefined();
            expect(changes.map((change) => change.check)).toContain(testCase.check);
          }
          expect(errors.length > 0, JSON.stringify(changes, null, 1)).toBe(testCase.breaking);
        });
      });
    }

    it("covers both directions of every family", () => {
      for (const [family, cases] of Object.entries(families)) {
        if (family === "documentation and metadata") continue;
        expect(
          cases.some((c) => c.breaking),
          `${family} has a breaking case`,
        ).toBe(true);
        expect(
          cases.some((c) => !c.breaking),
          `${family} has a non-breaking case`,
        ).toBe(true);
      }
    });
  });
}
