import { describe, expect, it } from "vitest";
import { createValidator, loadDocument, pointerSegment } from "../contract/support/contract.ts";

/** Every example in the bundle, with the pointer of the schema it must satisfy. */
function collectExamples(document: any) {
  const found: { where: string; schema: string; value: unknown }[] = [];
  const media = (content: any, at: string) => {
    for (const [type, item] of Object.entries<any>(content ?? {})) {
      const schema = `${at}/${pointerSegment(type)}/schema`;
      for (const [name, example] of Object.entries<any>(item.examples ?? {})) {
        found.push({ where: `${at}/${pointerSegment(type)}/examples/${name}`, schema, value: example.value });
      }
      if ("example" in item)
        found.push({ where: `${at}/${pointerSegment(type)}/example`, schema, value: item.example });
    }
  };
  for (const kind of ["paths", "webhooks"]) {
    for (const [key, pathItem] of Object.entries<any>(document[kind] ?? {})) {
      for (const [method, operation] of Object.entries<any>(pathItem)) {
        if (method === "parameters") continue;
        const at = `#/${kind}/${pointerSegment(key)}/${method}`;
        media(operation.requestBody?.content, `${at}/requestBody/content`);
        for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
          if (!response.$ref) media(response.content, `${at}/responses/${status}/content`);
        }
      }
    }
  }
  for (const [name, response] of Object.entries<any>(document.components.responses ?? {})) {
    media(response.content, `#/components/responses/${name}/content`);
  }
  for (const [name, parameter] of Object.entries<any>(document.components.parameters ?? {})) {
    if ("example" in parameter)
      found.push({
        where: `#/components/parameters/${name}/example`,
        schema: `#/components/parameters/${name}/schema`,
        value: parameter.example,
      });
  }
  for (const [name, schema] of Object.entries<any>(document.components.schemas ?? {})) {
    (schema.examples ?? []).forEach((value: unknown, i: number) => {
      found.push({
        where: `#/components/schemas/${name}/examples/${i}`,
        schema: `#/components/schemas/${name}`,
        value,
      });
    });
  }
  return found;
}

describe("examples", () => {
  const document = loadDocument();
  const validator = createValidator(document);
  const examples = collectExamples(document);

  it("covers every operation, webhook and shared parameter", () => {
    // 15 operations have at least one JSON body or response example each, and the 6 webhooks one each.
    const owners = new Set(
      examples.map((e) => e.where.split("/").slice(0, 4).join("/")).filter((w) => /^#\/(paths|webhooks)\//.test(w)),
    );
    expect(owners.size).toBe(15 + 6);
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
