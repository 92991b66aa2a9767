import { describe, expect, it } from "vitest";
import { contractExamples } from "../../scripts/lib/example-types.ts";
import { createValidator, listOperations, loadDocument, pointerSegment } from "../contract/support/contract.ts";

/** Every example in the bundle, with the pointer of the schema it must satisfy. */
function collectExamples(document: any) {
  return contractExamples(document).examples.map(({ pointer, schema, value }) => ({ where: pointer, schema, value }));
}

describe("examples", () => {
  const document = loadDocument();
  const validator = createValidator(document);
  const examples = collectExamples(document);

  it("covers every operation, webhook and shared parameter", () => {
    // Every operation has at least one JSON body or response example, and every webhook one: the owners are
    // read from the bundle, so a new operation without one fails here and one with one passes.
    const owners = new Set(
      examples.map((e) => e.where.split("/").slice(0, 4).join("/")).filter((w) => /^#\/(paths|webhooks)\//.test(w)),
    );
    const expected = [
      ...listOperations(document).map((operation) => `#/paths/${pointerSegment(operation.path)}/${operation.method}`),
      ...Object.keys(document.webhooks).map((name) => `#/webhooks/${pointerSegment(name)}/post`),
    ].sort();
    expect([...owners].sort()).toEqual(expected);
    expect(examples.length).toBeGreaterThanOrEqual(40);
  });

  it.each(examples.map((e) => [e.where, e] as const))("%s is valid against its schema", (_where, example) => {
    expect(validator.errors(example.schema, example.value)).toEqual([]);
  });

  it("rejects an example that breaks its schema (the check can fail)", () => {
    const broken = structuredClone(
      document.paths["/v1/cards"].post.requestBody.content["application/json"].examples.travelCard.value,
    );
    broken.category = "Groceries";
    delete broken.bin;
    const errors = validator.errors("#/paths/~1v1~1cards/post/requestBody/content/application~1json/schema", broken);
    expect(errors.join("\n")).toMatch(/must have required property 'bin'/);
    expect(errors.join("\n")).toMatch(/\/category must be equal to one of the allowed values/);
  });
});
