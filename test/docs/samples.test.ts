import { describe, expect, it } from "vitest";
import {
  addCodeSamples,
  curlSample,
  type OperationExample,
  operationExamples,
  toTsLiteral,
  typescriptSample,
} from "../../scripts/lib/docs/samples.ts";
import { HTTP_METHODS } from "../../src/http-methods.ts";
import { loadDocument } from "../contract/support/contract.ts";

function contractOperations(document: any) {
  const found: Array<{ method: string; path: string; operation: any }> = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const method of HTTP_METHODS) if (item[method]) found.push({ method, path, operation: item[method] });
  }
  return found;
}

describe("operationExamples()", () => {
  const document = loadDocument();
  const examples = operationExamples(document);
  const byId = new Map(examples.map((example) => [example.operationId, example]));

  it("covers every operation of the contract, once", () => {
    const expected = contractOperations(document)
      .map(({ operation }) => operation.operationId)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(examples.map((example) => example.operationId).sort()).toEqual(expected);
  });

  it("takes the company id from the X-Company-Id parameter example, only on company-scope operations", () => {
    const companyExample = document.components.parameters.CompanyId.example;
    for (const { operation } of contractOperations(document)) {
      const scoped = (operation.parameters ?? []).some((p: any) => p.$ref === "#/components/parameters/CompanyId");
      expect(byId.get(operation.operationId)!.companyId, operation.operationId).toBe(
        scoped ? companyExample : undefined,
      );
    }
    expect(["getTransaction", "onboardCompany", "listCompanies"].map((id) => byId.get(id)!.companyId)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("fills every path parameter from the contract's parameter examples", () => {
    expect(byId.get("updateCardSpendSettings")!.pathParams).toEqual([
      ["cardId", document.components.parameters.CardId.example],
    ]);
    expect(byId.get("openWalletAddress")!.pathParams).toEqual([
      ["walletId", document.components.parameters.WalletId.example],
    ]);
    for (const example of examples) {
      const names = [...example.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      expect(
        example.pathParams.map(([name]) => name),
        example.operationId,
      ).toEqual(names);
    }
  });

  it("uses the first named request example as the body, and no body where the contract has none", () => {
    const createCard = document.paths["/v1/cards"].post.requestBody.content["application/json"].examples;
    const [firstName, first] = Object.entries<any>(createCard)[0]!;
    expect(byId.get("createCard")!.body).toEqual({ name: firstName, value: first.value });
    expect(byId.get("createCardDetailsToken")!.body).toBeUndefined();
    expect(byId.get("listCards")!.body).toBeUndefined();
  });

  it("puts query parameters with an example in the query, and leaves out those without", () => {
    // A copy whose listCards takes a parameter set of the test's own, so a parameter added to the contract's
    // listCards (a change the API team's guide walks through) leaves this test as it was.
    const copy = loadDocument();
    copy.paths["/v1/cards"].get.parameters = [
      { $ref: "#/components/parameters/CompanyId" },
      { $ref: "#/components/parameters/Page" },
      { name: "status", in: "query", schema: { type: "string" }, example: "Active" },
      { name: "note", in: "query", schema: { type: "string" } },
    ];
    const listCards = operationExamples(copy).find((example) => example.operationId === "listCards")!;
    expect(listCards.queryParams).toEqual([
      ["page", copy.components.parameters.Page.example],
      ["status", "Active"],
    ]);
    // The contract's own: every query value sent is a query parameter the operation declares.
    expect(examples.some((example) => example.queryParams.length > 0)).toBe(true);
    for (const example of examples) {
      const { operation } = contractOperations(document).find((o) => o.operation.operationId === example.operationId)!;
      const declared = (operation.parameters ?? [])
        .map((p: any) => (p.$ref ? document.components.parameters[p.$ref.split("/").pop()] : p))
        .filter((p: any) => p.in === "query")
        .map((p: any) => p.name);
      for (const [name] of example.queryParams) expect(declared, example.operationId).toContain(name);
    }
  });

  it("names the operation and the parameter when a path parameter has no example", () => {
    const broken = loadDocument();
    delete broken.components.parameters.CardId.example;
    delete broken.components.schemas.Ulid.example;
    delete broken.components.schemas.Ulid.examples;
    expect(() => operationExamples(broken)).toThrow(
      /\(updateCardSpendSettings\): path parameter "cardId" has no example/,
    );
  });

  it("names the operation when a request body has no example", () => {
    const broken = loadDocument();
    delete broken.paths["/v1/companies"].post.requestBody.content["application/json"].examples;
    expect(() => operationExamples(broken)).toThrow(
      /POST \/v1\/companies \(onboardCompany\): the request body has no named example/,
    );
  });

  it("rejects a document without paths and an unresolvable $ref, naming them", () => {
    expect(() => operationExamples({ openapi: "3.1.0" })).toThrow(/no `paths` object/);
    const broken = loadDocument();
    broken.paths["/v1/cards"].get.parameters[0] = { $ref: "#/components/parameters/Nope" };
    expect(() => operationExamples(broken)).toThrow(
      /\(listCards\).*"#\/components\/parameters\/Nope" does not resolve/,
    );
  });
});

describe("typescriptSample() and curlSample()", () => {
  const example: OperationExample = {
    operationId: "updateCardSpendSettings",
    method: "patch",
    path: "/v1/cards/{cardId}/spend-settings",
    companyId: "01JD8X2K7P3M9Q4R6S8T0V2W4X",
    pathParams: [["cardId", "01JD8X9N4E2R6T8V0W2Y4Z6A8C"]],
    queryParams: [],
    headerParams: [],
    body: { name: "limited", value: { limitPerTransaction: 500, allowedCurrencies: ["EUR", "USD"], note: "it's" } },
    result: { statuses: [200], at: undefined, list: false, fields: [] },
  };

  it("writes a TypeScript call through this project's client, acting for the company", () => {
    const source = typescriptSample(example);
    expect(source).toContain('import { createPartnerClient } from "partner-api-client";');
    expect(source).toContain("apiKey: process.env.PARTNER_API_KEY!");
    expect(source).toContain("baseUrl: process.env.PARTNER_API_BASE_URL!");
    expect(source).toContain('const companyId = "01JD8X2K7P3M9Q4R6S8T0V2W4X";');
    expect(source).toContain("const company = client.forCompany(companyId);");
    expect(source).toContain('await company.PATCH("/v1/cards/{cardId}/spend-settings", {');
    expect(source).toContain('      cardId: "01JD8X9N4E2R6T8V0W2Y4Z6A8C",');
    expect(source).toContain('    allowedCurrencies: ["EUR", "USD"],');
    expect(source).not.toMatch(/https?:\/\//);
  });

  it("calls the plain client when the operation has no company scope, and passes no init when nothing is needed", () => {
    const source = typescriptSample({
      ...example,
      companyId: undefined,
      pathParams: [],
      body: undefined,
      method: "get",
      path: "/v1/companies",
    });
    expect(source).not.toContain("forCompany");
    expect(source).toContain('await client.GET("/v1/companies");');
  });

  it("writes the same request as curl, with the key and base address from the environment", () => {
    const source = curlSample(example);
    const lines = source.trimEnd().split(" \\\n  ");
    expect(lines[0]).toBe('curl -X PATCH "$PARTNER_API_BASE_URL/v1/cards/01JD8X9N4E2R6T8V0W2Y4Z6A8C/spend-settings"');
    expect(lines).toContain('-H "X-API-Key: $PARTNER_API_KEY"');
    expect(lines).toContain('-H "X-Company-Id: 01JD8X2K7P3M9Q4R6S8T0V2W4X"');
    expect(lines).toContain('-H "Content-Type: application/json"');
    const data = lines.find((line) => line.startsWith("-d "))!;
    // The single quote in the body is closed, escaped and reopened, so the shell passes the JSON intact.
    expect(data).toContain(`it'\\''s`);
    expect(JSON.parse(data.slice(4, -1).replace(/'\\''/g, "'"))).toEqual(example.body!.value);
  });

  it("puts query parameters in the curl URL, encoded", () => {
    const source = curlSample({
      ...example,
      method: "get",
      body: undefined,
      pathParams: [],
      path: "/v1/cards",
      queryParams: [
        ["keyword", "a b&c"],
        ["page", 2],
      ],
    });
    expect(source.split("\n")[0]).toBe('curl -X GET "$PARTNER_API_BASE_URL/v1/cards?keyword=a%20b%26c&page=2" \\');
    expect(source).not.toContain("Content-Type");
  });
});

describe("toTsLiteral()", () => {
  it("quotes only keys that are not identifiers and round-trips the value", () => {
    const value = { plain: 1, "with-dash": [true, null], nested: { list: [{ a: "x" }] }, empty: {}, none: [] };
    const literal = toTsLiteral(value);
    expect(literal).toContain("  plain: 1,");
    expect(literal).toContain('  "with-dash": [true, null],');
    expect(new Function(`return (${literal});`)()).toEqual(value);
  });
});

describe("addCodeSamples()", () => {
  it("adds a sample in every language to every operation and webhook without changing its input", () => {
    const input = loadDocument();
    const before = JSON.stringify(input);
    const { document, operations } = addCodeSamples(input) as { document: any; operations: unknown[] };
    expect(JSON.stringify(input)).toBe(before);
    expect(operations).toHaveLength(contractOperations(input).length);
    for (const { operation } of contractOperations(document)) {
      const samples = operation["x-codeSamples"];
      expect(
        samples.map((s: any) => s.label),
        operation.operationId,
      ).toEqual(["TypeScript", "curl", "Python", "Java", "Go", "C#", "PHP", "Ruby"]);
      expect(samples[0].source).toContain("createPartnerClient");
      expect(samples[1].source).toMatch(/^curl -X [A-Z]+ "\$PARTNER_API_BASE_URL\//);
    }
    for (const [type, webhook] of Object.entries<any>(document.webhooks)) {
      const samples = webhook.post["x-codeSamples"];
      expect(
        samples.map((s: any) => s.label),
        type,
      ).toEqual(["TypeScript", "curl", "Python", "Java", "Go", "C#", "PHP", "Ruby"]);
      expect(samples[0].source).toContain("constructWebhookEvent");
      // curl sends the page's own example event, signed.
      expect(samples[1].source).toContain(
        JSON.stringify(
          webhook.post.requestBody.content["application/json"].examples[
            Object.keys(webhook.post.requestBody.content["application/json"].examples)[0]!
          ].value,
        ),
      );
    }
  });

  it("keeps samples the contract already has and replaces ours by label", () => {
    const input = loadDocument();
    input.paths["/v1/cards"].get["x-codeSamples"] = [
      { lang: "Kotlin", label: "Kotlin", source: "println()" },
      { lang: "curl", label: "curl", source: "old" },
    ];
    const { document } = addCodeSamples(input) as { document: any };
    const labels = document.paths["/v1/cards"].get["x-codeSamples"].map((s: any) => s.label);
    expect(labels).toEqual(["Kotlin", "TypeScript", "curl", "Python", "Java", "Go", "C#", "PHP", "Ruby"]);
    expect(document.paths["/v1/cards"].get["x-codeSamples"][2].source).not.toBe("old");
  });
});

describe("the languages' literals", () => {
  it("spell a body in each language, strings quoted so no interpolation happens", async () => {
    const { singleQuoted, literal } = await import("../../scripts/lib/docs/languages/common.ts");
    const { pythonLiteral } = await import("../../scripts/lib/docs/languages/python.ts");
    const { rubyLiteral } = await import("../../scripts/lib/docs/languages/ruby.ts");
    const { phpLiteral } = await import("../../scripts/lib/docs/languages/php.ts");
    expect(singleQuoted("it's $x #{y} \\")).toBe("'it\\'s $x #{y} \\\\'");
    const value = { a: null, b: [true, "x"], c: {} };
    expect(pythonLiteral(value)).toBe('{\n    "a": None,\n    "b": [True, "x"],\n    "c": {},\n}');
    expect(rubyLiteral(value)).toBe("{\n  'a' => nil,\n  'b' => [true, 'x'],\n  'c' => {},\n}");
    expect(phpLiteral(value)).toBe("[\n    'a' => null,\n    'b' => [true, 'x'],\n    'c' => (object) [],\n]");
    expect(typeof literal).toBe("function");
  });
});
