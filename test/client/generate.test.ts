import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { operations, pageable, servers, ulid } from "../../generated/contract.ts";
import { generateCommand } from "../../scripts/generate.ts";
import { contractExamples } from "../../scripts/lib/example-types.ts";
import {
  contractFacts,
  examplesModulePath,
  generateContractModule,
  generateExamplesModule,
  generateSchemaTypes,
} from "../../scripts/lib/generate.ts";
import { bundleJsonPath, repoRoot } from "../../scripts/lib/paths.ts";
import { listOperations } from "../contract/support/contract.ts";
import { runInProcess, runScript } from "../helpers/run.ts";

const bundle = () => JSON.parse(readFileSync(bundleJsonPath, "utf8")) as Record<string, any>;

/** The generator's check, its options, and the files it writes. */
function checksAndExamples(): void {
  test("`npm run generate -- --check` passes: nothing generated is stale; checked again, it remembers", async () => {
    // The first check of a tree is a full one (or remembered from an earlier run on the same bytes).
    const run = await runInProcess(generateCommand, ["--check"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /generated files are up to date (\(inputs and generated files unchanged since .*\) )?in \d/,
    );
    const again = await runInProcess(generateCommand, ["--check"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /generated files are up to date \(inputs and generated files unchanged since the check of \d{4}-/,
    );
  }, 60_000);

  test("`npm run generate` exits 2 on an unknown option, naming it", { tags: ["slow"] }, () => {
    const run = runScript("generate.ts", ["--chek"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("Unknown option '--chek'");
  });

  test("generated/examples.ts holds every example of the contract, each a const of its generated type (tsc compiles it)", () => {
    const text = readFileSync(examplesModulePath, "utf8");
    expect(text).toBe(generateExamplesModule(bundle(), "./schema.js", "generated/openapi.json"));
    const { examples } = contractExamples(bundle());
    expect(text.match(/^export const example\d+: /gm)?.length).toBe(examples.length);
    expect(text).toContain("export const example");
    expect(text).toMatch(
      /example cardOnlyCompany[^\n]*\nexport const example\d+: NonNullable<paths\["\/v1\/companies"\]\["post"\]\["requestBody"\]>/,
    );
    const tsconfig = JSON.parse(readFileSync(path.join(repoRoot, "tsconfig.json"), "utf8")) as { include: string[] };
    expect(tsconfig.include).toContain("generated");
  });

  test("generated/contract.ts is what the generator makes of the bundle", () => {
    expect(readFileSync(path.join(repoRoot, "generated", "contract.ts"), "utf8")).toBe(
      generateContractModule(bundle()),
    );
  });
}

/** The facts the client takes from the contract. */
function factsFromTheContract(): void {
  test("the facts follow the contract", () => {
    const all = Object.values(operations).flatMap((methods) => Object.values(methods) as readonly unknown[][]);
    const idsWhere = (index: number, value: number) =>
      all
        .filter((o) => o[index] === value)
        .map((o) => o[0])
        .sort();
    // Read from the bundle (x-idempotent, the X-Company-Id parameter), never typed: a new operation changes both.
    const document = bundle();
    const contract = listOperations(document);
    const ids = (keep: (operation: (typeof contract)[number]) => boolean) =>
      contract
        .filter(keep)
        .map((operation) => operation.operationId)
        .sort();
    expect(idsWhere(1, 1)).toEqual(ids((o) => document.paths[o.path][o.method]["x-idempotent"] === true));
    expect(idsWhere(1, 1)).toContain("listCards");
    expect(idsWhere(1, 0)).toContain("createCard");
    expect(idsWhere(2, 0)).toEqual(ids((o) => !o.companyScoped));
    expect(idsWhere(2, 0)).toContain("onboardCompany");
    expect(all).toHaveLength(contract.length);
    expect(operations["/v1/wallets/{walletId}/addresses"].POST).toEqual([
      "openWalletAddress",
      1,
      1,
      [],
      { walletId: 0 },
    ]);
    expect(operations["/transactions/{transactionId}"].GET).toEqual([
      "getTransaction",
      1,
      0,
      [403, 404],
      { transactionId: 1 },
    ]);
    expect(pageable).toEqual({
      "/v1/cards": { itemsKey: "cards" },
      "/v1/card-spending-account/transactions": { itemsKey: "transactions" },
    });
    expect(servers).toEqual({
      production: "https://production.partner-api.invalid",
      sandbox: "https://sandbox.partner-api.invalid",
    });
    expect(new RegExp(ulid.pattern).test(ulid.example)).toBe(true);
  });

  test("a change in the contract changes the facts", () => {
    const document = bundle();
    delete document.paths["/v1/cards"].get["x-idempotent"];
    document.servers[0]["x-environment"] = "production";
    expect(contractFacts(document).operations["GET /v1/cards"]!.idempotent).toBe(false);
  });

  test("a contract missing what the client needs is refused, naming it", () => {
    const noUlid = bundle();
    delete noUlid.components.schemas.Ulid;
    expect(() => contractFacts(noUlid)).toThrow(/components.schemas.Ulid with a pattern is missing/);
    const noSandbox = bundle();
    noSandbox.servers = [noSandbox.servers[0]];
    expect(() => contractFacts(noSandbox)).toThrow(/exactly one server for environment "sandbox"/);
  });
}

/** How the schema types read defaults and allOf. */
function schemaTypes(): void {
  test("a default does not make a property present: optional unless `required`, sent or received", async () => {
    // One schema in a request body, a response and a webhook (and a query and a header parameter): the same reading.
    const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
    const ref = { $ref: "#/components/schemas/Settings" };
    const types = await generateSchemaTypes({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/settings": {
          post: {
            parameters: [
              { name: "page", in: "query", schema: { type: "integer", default: 1 } },
              { name: "X-Mode", in: "header", schema: { type: "string", default: "auto" } },
            ],
            requestBody: { required: true, ...json(ref) },
            responses: { "200": { description: "ok", ...json(ref) } },
          },
        },
      },
      webhooks: { changed: { post: { requestBody: json(ref), responses: { "200": { description: "ok" } } } } },
      components: {
        schemas: {
          Settings: {
            type: "object",
            required: ["mode"],
            properties: { mode: { type: "string", default: "auto" }, limit: { type: "number", default: 10 } },
          },
        },
      },
    });
    const settings = /Settings: \{([^}]*)\}/.exec(types)?.[1] ?? "";
    expect(settings).toMatch(/\bmode: string;/);
    expect(settings).toMatch(/\blimit\?: number;/);
    // Parameters are optional unless `required`, whatever their default.
    expect(types).toMatch(/\bpage\?: number;/);
    expect(types).toMatch(/"X-Mode"\?: string;/);
  });

  test("an allOf that redeclares its base's properties omits them from the base instead of intersecting", async () => {
    const object = (properties: Record<string, unknown>) => ({ type: "object", properties });
    const types = await generateSchemaTypes({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {},
      components: {
        schemas: {
          Envelope: object({ id: { type: "string" }, body: { type: "object" } }),
          Narrowed: {
            allOf: [{ $ref: "#/components/schemas/Envelope" }, object({ body: object({ n: { type: "number" } }) })],
          },
          Extended: { allOf: [{ $ref: "#/components/schemas/Envelope" }, object({ extra: { type: "string" } })] },
        },
      },
    });
    expect(types).toMatch(/Narrowed: Omit<components\["schemas"\]\["Envelope"\], "body"> & \{/);
    expect(types).toMatch(/Extended: components\["schemas"\]\["Envelope"\] & \{/);
  });
}

describe("generated files", () => {
  checksAndExamples();
  factsFromTheContract();
  schemaTypes();
});
