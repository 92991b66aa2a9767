/**
 * Every example of both contracts compiles against the types generated from them: a request body example as its
 * operation's request body, a response example as its status's response, a webhook example as its event's
 * payload. Types that reject the contract's own examples are a promise broken for every partner.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { type ContractTypes, checkExampleTypes, contractExamples } from "../../scripts/lib/example-types.ts";
import { generateSchemaTypes, sandboxTypesPath, schemaTypesPath } from "../../scripts/lib/generate.ts";
import { bundleJsonPath, sandboxBundleJsonPath } from "../../scripts/lib/paths.ts";

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, never>;
const contracts: ContractTypes[] = [
  { name: "openapi", document: readJson(bundleJsonPath), typesPath: schemaTypesPath },
  { name: "sandbox", document: readJson(sandboxBundleJsonPath), typesPath: sandboxTypesPath },
];

const summary = (errors: Awaited<ReturnType<typeof checkExampleTypes>>) =>
  errors.map((error) => `${error.contract}: ${error.example}: ${error.message}`);

/** Every example found and compiled, and types that reject them caught. */
function foundAndCompiled(): void {
  test("every example of both contracts is found, each with a type to compile against", () => {
    for (const { name, document } of contracts) {
      const { examples, unchecked } = contractExamples(document);
      expect(unchecked, name).toEqual([]);
      expect(examples.length, name).toBeGreaterThan(30);
    }
    const labels = contracts.flatMap(({ document }) => contractExamples(document).examples.map((e) => e.label));
    expect(labels).toEqual(
      expect.arrayContaining([
        "POST /v1/companies request body, example cardOnlyCompany",
        "POST /_sandbox/companies/{companyId}/payment-routes request body, example onramp",
        "GET /v1/cards 200, example twoCards",
        "webhook payment_route.created, example onrampRouteCreated",
        "response EmptyObject, example empty",
        "parameter Page, example",
        "schema Ulid, schema examples/0",
      ]),
    );
  });

  test("every example compiles against generated/schema.d.ts and generated/sandbox.d.ts", async () => {
    expect(summary(await checkExampleTypes(contracts))).toEqual([]);
  }, 60_000);

  test("types where a default is required again (openapi-typescript's defaultNonNullable) fail on the examples that leave it out", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "partner-old-types-"));
    try {
      const old = await Promise.all(
        contracts.map(async (contract) => {
          const typesPath = path.join(dir, `${contract.name}.d.ts`);
          await writeFile(typesPath, await generateSchemaTypes(contract.document, "", { defaultNonNullable: true }));
          return { ...contract, typesPath };
        }),
      );
      const errors = await checkExampleTypes(old);
      expect(errors.map((error) => error.example.replace(/ \(#.*\)$/, ""))).toEqual([
        "POST /v1/companies request body, example cardOnlyCompany",
        "POST /_sandbox/companies/{companyId}/payment-routes request body, example onramp",
        "POST /_sandbox/companies/{companyId}/payment-routes request body, example offramp",
        "POST /_sandbox/companies/{companyId}/payment-routes request body, example forced",
        "POST /_sandbox/payment-routes/{routeId}/deposits request body, example hundred",
      ]);
      expect(errors[0]!.message).toMatch(/Property 'products' is missing/);
      expect(errors[1]!.message).toMatch(/missing the following properties .*: status, feePercent/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
}

/** A failing example named wherever it is. */
function namedFailures(): void {
  test("an example that does not compile is named, wherever it is: body, response, webhook, parameter, header, schema", async () => {
    const json = (schema: unknown, examples: Record<string, unknown>) => ({
      content: {
        "application/json": {
          schema,
          examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])),
        },
      },
    });
    const thing = { $ref: "#/components/schemas/Thing" };
    const document = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/things/{thingId}": {
          parameters: [{ name: "thingId", in: "path", required: true, schema: { type: "string" }, example: 7 }],
          post: {
            parameters: [
              {
                name: "size",
                in: "query",
                schema: { type: "integer" },
                examples: { good: { value: 3 }, bad: { value: "3" } },
              },
            ],
            requestBody: json(thing, {
              good: { kind: "a" },
              badKind: { kind: "c" },
              extra: { kind: "a", colour: "red" },
            }),
            responses: {
              "201": {
                description: "made",
                headers: { "X-Count": { schema: { type: "integer" }, example: "many" } },
                ...json(thing, { good: { kind: "b", count: 1 }, badCount: { kind: "b", count: "one" } }),
              },
            },
          },
        },
      },
      webhooks: {
        "thing.made": {
          post: { requestBody: json(thing, { missingKind: {} }), responses: { "200": { description: "ok" } } },
        },
      },
      components: {
        schemas: {
          Thing: {
            type: "object",
            required: ["kind"],
            properties: { kind: { enum: ["a", "b"] }, count: { type: "integer", examples: [1] } },
            examples: [{ kind: "b" }, { kind: 1 }],
          },
        },
        examples: { shared: { value: { kind: "z" } } },
      },
    };
    document.paths["/things/{thingId}"].post.requestBody.content["application/json"].examples.shared = {
      $ref: "#/components/examples/shared",
    } as never;
    const { unchecked } = contractExamples(document as never);
    expect(unchecked).toEqual(["#/components/schemas/Thing/properties/count/examples/0"]);
    const dir = await mkdtemp(path.join(os.tmpdir(), "partner-example-types-"));
    try {
      const typesPath = path.join(dir, "things.d.ts");
      await writeFile(typesPath, await generateSchemaTypes(document));
      const errors = await checkExampleTypes([{ name: "things", document: document as never, typesPath }]);
      expect(errors.map((error) => error.example.replace(/ \(#.*\)$/, ""))).toEqual([
        "/things/{thingId} path parameter thingId, example",
        "POST /things/{thingId} query parameter size, example bad",
        "POST /things/{thingId} request body, example badKind",
        "POST /things/{thingId} request body, example extra",
        "POST /things/{thingId} request body, example shared",
        "POST /things/{thingId} 201, example badCount",
        "POST /things/{thingId} 201 header X-Count, example",
        "webhook thing.made, example missingKind",
        "schema Thing, schema examples/1",
      ]);
      expect(errors.every((error) => error.contract === "things")).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
}

describe("the contracts' examples against the generated types", () => {
  foundAndCompiled();
  namedFailures();
});
