/**
 * Equivalent rewrites report nothing: one case per way the contract has been rewritten without changing what it
 * allows (the `dependentSchemas` rule said with `not`, `allOf` members regrouped, a schema moved behind a `$ref`),
 * each beside the nearest rewrite that does change something, which must still be reported.
 */
import { describe, expect, it } from "vitest";
import { withEquivalentsFolded } from "../../scripts/lib/diff/equivalent.ts";
import { diffContracts } from "../../scripts/lib/diff/report.ts";
import type { Document } from "../../scripts/lib/diff/resolve.ts";

type Any = any;

/** One response (GET /payments/{id}) and one webhook delivering the same schema. */
function contract(payment: Any, extra: Any = {}): Document {
  const use = { $ref: "#/components/schemas/Payment" };
  return {
    openapi: "3.1.0",
    info: { title: "Equivalence", version: "1.0.0" },
    paths: {
      "/payments/{id}": {
        get: {
          operationId: "getPayment",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "A payment", content: { "application/json": { schema: use } } } },
        },
      },
    },
    webhooks: {
      "payment.created": {
        post: {
          requestBody: { content: { "application/json": { schema: use } } },
          responses: { "200": { description: "Received" } },
        },
      },
    },
    components: { schemas: { Payment: payment, ...extra } },
  } as Document;
}

const fields = () => ({
  id: { type: "string" },
  method: { type: ["string", "null"] },
  card: { type: "object", properties: { last4: { type: "string" } } },
});

/** Every change reported, as `<check> <level>`. */
function reported(base: Document, head: Document): string[] {
  return diffContracts({ document: base, label: "base" }, { document: head, label: "head" }).changes.map(
    (change) => `${change.check} ${change.level}`,
  );
}

describe("equivalent rewrites report nothing", () => {
  it("a dependentSchemas rule said with `not` rather than with the field's type (Transaction's card rule)", () => {
    const base = contract({
      type: "object",
      properties: fields(),
      dependentSchemas: { card: { properties: { method: { type: "string" } } } },
    });
    const head = contract({
      type: "object",
      properties: fields(),
      dependentSchemas: {
        card: { not: { required: ["method"], properties: { method: { type: "null" } } } },
      },
    });
    expect(reported(base, head)).toEqual([]);
    expect(reported(head, base)).toEqual([]);
  });

  it("…but the rule changed is reported (with card, method may now be null)", () => {
    const base = contract({
      type: "object",
      properties: fields(),
      dependentSchemas: { card: { not: { required: ["method"], properties: { method: { type: "null" } } } } },
    });
    const head = contract({ type: "object", properties: fields(), dependentSchemas: { card: { properties: {} } } });
    expect(reported(base, head).length).toBeGreaterThan(0);
  });

  it("allOf members regrouped (one member split in two, the same fields)", () => {
    const base = contract({
      allOf: [
        { type: "object", properties: { id: { type: "string" }, method: { type: ["string", "null"] } } },
        { type: "object", properties: { card: fields().card } },
      ],
    });
    const head = contract({
      allOf: [
        { type: "object", properties: { id: { type: "string" } } },
        { allOf: [{ type: "object", properties: { method: { type: ["string", "null"] }, card: fields().card } }] },
      ],
    });
    expect(reported(base, head).filter((entry) => !entry.endsWith(" info"))).toEqual([]);
  });

  it("…but a field dropped while regrouping is an error (partners read it)", () => {
    const base = contract({
      allOf: [
        { type: "object", properties: { id: { type: "string" }, method: { type: ["string", "null"] } } },
        { type: "object", properties: { card: fields().card } },
      ],
    });
    const head = contract({
      allOf: [
        { type: "object", properties: { id: { type: "string" } } },
        { type: "object", properties: {} },
      ],
    });
    expect(reported(base, head)).toContain("response-optional-field-removed error");
  });

  it("a schema moved behind a $ref (the card's details made a component)", () => {
    const base = contract({ type: "object", properties: fields() });
    const head = contract(
      { type: "object", properties: { ...fields(), card: { $ref: "#/components/schemas/CardDetails" } } },
      { CardDetails: fields().card },
    );
    expect(reported(base, head)).toEqual([]);
    // Moved back inline, the component itself is gone: a name the generated types had (information only).
    expect(reported(head, base)).toEqual(["schema-component-removed info"]);
  });

  it("…but a field lost in the move is reported", () => {
    const base = contract({ type: "object", properties: fields() });
    const head = contract(
      { type: "object", properties: { ...fields(), card: { $ref: "#/components/schemas/CardDetails" } } },
      { CardDetails: { type: "object", properties: {} } },
    );
    expect(reported(base, head)).toContain("response-optional-field-removed error");
  });

  it("folding leaves the input document untouched", () => {
    const document = contract({
      type: "object",
      properties: fields(),
      dependentSchemas: { card: { not: { required: ["method"], properties: { method: { type: "null" } } } } },
    });
    const before = structuredClone(document);
    const folded = withEquivalentsFolded(document) as Any;
    expect(document).toEqual(before);
    expect(folded.components.schemas.Payment.dependentSchemas.card).toEqual({
      properties: { method: { type: "string" } },
    });
  });
});
