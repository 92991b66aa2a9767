/**
 * The conformance engine's small parts on their own: the four report formats of a run with failures, the curl
 * line, where ids are read from, the text a parameter refuses, the caps on what an answer can make verify hold.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { verifyCommand } from "../../devkit/src/cli/verify.ts";
import { invalidParameterText } from "../../devkit/src/conformance/cases.ts";
import { holdsString, MAX_FINDINGS, responseSchemaConformance } from "../../devkit/src/conformance/checks.ts";
import { curlLine, MAX_ANSWER_BYTES, send } from "../../devkit/src/conformance/http.ts";
import { linkOrder, linkSources, pointerPath, valueName, valuesAt } from "../../devkit/src/conformance/links.ts";
import { renderReport } from "../../devkit/src/conformance/report.ts";
import type { Failure } from "../../devkit/src/conformance/types.ts";
import type { VerifyReport } from "../../devkit/src/conformance/verify.ts";
import { sandboxRouter } from "../../devkit/src/sandbox/index.ts";
import { runInProcess } from "../helpers/run.ts";

const failure: Failure = {
  check: "response_schema_conformance",
  level: "error",
  operationId: "listCards",
  method: "GET",
  path: "/v1/cards",
  status: 200,
  message: "must match pattern <ULID> & more",
  jsonPath: "/cards/0/id",
  rule: "#/components/schemas/Ulid/pattern",
  label: "example twoCards",
  curl: "curl -sS -i -X GET 'http://127.0.0.1:1/v1/cards' -H \"X-API-Key: $PARTNER_API_KEY\"",
};
const report: VerifyReport = {
  baseUrl: "http://127.0.0.1:1",
  seed: 7,
  sandboxControl: false,
  summary: {
    operations: 2,
    operationsInContract: 15,
    requests: 9,
    failures: 1,
    warnings: 1,
    skipped: 1,
    deliveries: 0,
    durationMs: 1234,
  },
  failures: [failure],
  warnings: [{ ...failure, check: "unsupported_method", level: "warning", message: "405 without the Allow header" }],
  skipped: [{ what: "createCard", reason: "a write, and this run is read-only" }],
  checks: ["response_schema_conformance", "unsupported_method"],
  coverage: { listCards: 5, listCompanies: 4 },
  matrix: { listCards: { positive: 3, negative: 2 }, listCompanies: { positive: 4 } },
  notExercised: [{ what: "createCard", reason: "a write, and this run is read-only" }],
  exercised: { share: 2 / 3, operations: 2, allowed: 3, minCoverage: 0.5 },
  couldNotCheck: false,
  changes: [],
};

describe("reports", () => {
  it("text: failures first, each with the status, the rule and its JSON path, the request and its curl line", () => {
    const text = renderReport(report, "text");
    expect(text.indexOf("FAILURES (1)")).toBeLessThan(text.indexOf("WARNINGS (1)"));
    expect(text.indexOf("WARNINGS (1)")).toBeLessThan(text.indexOf("SKIPPED (1)"));
    expect(text).toContain("1. [response_schema_conformance] listCards (GET /v1/cards): 200");
    expect(text).toContain("   at /cards/0/id, rule #/components/schemas/Ulid/pattern");
    expect(text).toContain(`   ${failure.curl}`);
    expect(text).toMatch(
      /http:\/\/127\.0\.0\.1:1: 1 failure\(s\): 2 of 15 operations, 9 requests.*in 1\.23 s \(seed 7\)\n$/,
    );
  });

  it("json: one object with summary and failures carrying check, operationId, method, path, status, message", () => {
    const json = JSON.parse(renderReport(report, "json"));
    expect(json.summary).toMatchObject({ operations: 2, requests: 9, failures: 1, skipped: 1, durationMs: 1234 });
    expect(json.failures[0]).toMatchObject({
      check: "response_schema_conformance",
      operationId: "listCards",
      method: "GET",
      path: "/v1/cards",
      status: 200,
      message: failure.message,
    });
  });

  it("junit: a failure per broken check, escaped, and the skips", () => {
    const xml = renderReport(report, "junit");
    expect(xml).toContain('tests="5" failures="2" skipped="1"');
    expect(xml).toContain(
      '<testcase classname="listCards" name="listCards response_schema_conformance"><failure message="must match pattern &lt;ULID&gt; &amp; more" type="error">',
    );
    expect(xml).toContain(
      '<testcase classname="not exercised" name="createCard"><skipped message="a write, and this run is read-only"/>',
    );
    expect(xml).not.toMatch(/<ULID>/);
  });

  it("markdown: a verdict line, a table of failures and the curl lines folded away", () => {
    const md = renderReport(report, "markdown");
    expect(md).toMatch(/^### ❌ partner-api verify: 1 failure\(s\)/);
    expect(md).toContain(
      "| `response_schema_conformance` | listCards (GET /v1/cards) | 200 | must match pattern &lt;ULID&gt; &amp; more (at /cards/0/id, rule #/components/schemas/Ulid/pattern) |",
    );
    expect(md).toContain("<details><summary>Requests to reproduce them</summary>");
  });

  it("every format says what the run changed on the target (the shared clock, its receivers)", () => {
    const changes = [
      "moved the sandbox's clock 60 min 0 s forward (the workflows' advanceClock steps); the clock is shared by every account of the sandbox",
      "registered 2 webhook receiver(s) through the sandbox's control API and removed them",
    ];
    const changed: VerifyReport = { ...report, changes };
    const text = renderReport(changed, "text");
    expect(text).toMatch(
      /^CHANGES TO THE TARGET\n\n- moved the sandbox's clock 60 min 0 s forward .*\n- registered 2 webhook/m,
    );
    expect(JSON.parse(renderReport(changed, "json")).changes).toEqual(changes);
    expect(renderReport(changed, "junit")).toContain(
      `<testsuite name="changes to the target" tests="0">\n    <system-out>moved the sandbox&apos;s clock 60 min 0 s forward`,
    );
    expect(renderReport(changed, "markdown")).toContain(
      "#### Changes to the target\n\n- moved the sandbox's clock 60 min 0 s",
    );
    // A run that changed nothing says nothing of it.
    for (const format of ["text", "json", "junit", "markdown"] as const)
      expect(renderReport(report, format)).not.toMatch(/changes to the target|"changes": \[\s*"/i);
  });
});

describe("grouped failures and link order", () => {
  it("text and markdown tell one cause on many operations once, naming each operation", () => {
    const auth = (operationId: string, path: string): Failure => ({
      check: "ignored_auth",
      level: "error",
      operationId,
      method: "GET",
      path,
      status: 200,
      message: "a request without X-API-Key was answered 200: it was let through",
    });
    const grouped: VerifyReport = {
      ...report,
      failures: [auth("listCards", "/v1/cards"), auth("listCardBins", "/v1/card-bins"), failure],
      summary: { ...report.summary, failures: 3 },
    };
    const text = renderReport(grouped, "text");
    expect(text).toMatch(/^1\. \[ignored_auth\] listCards, listCardBins \(2 requests\): 200$/m);
    expect(text).toMatch(/^2\. \[response_schema_conformance\] listCards \(GET \/v1\/cards\): 200$/m);
    expect(text).not.toMatch(/^3\. /m);
    const markdown = renderReport(grouped, "markdown");
    expect(markdown.match(/\| `ignored_auth` \|/g)).toHaveLength(1);
    expect(markdown).toContain("listCards, listCardBins (2 requests)");
  });

  it("the contract's links and workflows order the operations: what feeds another runs before it", () => {
    const router = sandboxRouter();
    const document = JSON.parse(readFileSync("generated/openapi.json", "utf8"));
    const operations = router.operations.filter((operation) => operation.api === "partner");
    const sources = linkSources(document, operations);
    expect(sources.length).toBeGreaterThanOrEqual(31);
    expect(sources).toContainEqual(
      expect.objectContaining({
        operationId: "listCards",
        at: "cards[].id",
        value: "cardId",
        to: "unfreezeCard",
        scoped: true,
      }),
    );
    const layers = linkOrder(operations, sources).map((layer) => layer.map((operation) => operation.operationId));
    // The first layer is what nothing feeds (read from the links, not typed: a new operation no link reaches is
    // there too): the company's own operations, and getTransaction (no company, no link feeds it: the API
    // description does not say a ledger entry's transaction.id reads back through it).
    expect(layers[0]).toEqual(expect.arrayContaining(["listCompanies", "getTransaction", "onboardCompany"]));
    for (const id of layers[0]!) expect(sources.filter((source) => source.to === id)).toEqual([]);
    const at = (id: string) => layers.findIndex((layer) => layer.includes(id));
    expect(at("listCards")).toBeLessThan(at("unfreezeCard"));
    expect(pointerPath("/cards/0/id")).toBe("cards[].id");
    expect(pointerPath("/0/id")).toBeUndefined();
    expect(valueName({ in: "header", name: "X-Company-Id" })).toBe("companyId");
  });
});

describe("parts", () => {
  it("curlLine quotes for the shell and reads the keys from the environment", () => {
    const line = curlLine({
      method: "POST",
      url: "http://h/v1/cards",
      headers: { "X-API-Key": "secret-key", "X-Company-Id": "01J", "Content-Type": "application/json" },
      body: `{"name":"O'Brien"}`,
      account: "other",
    });
    expect(line).toBe(
      `curl -sS -i -X POST 'http://h/v1/cards' -H "X-API-Key: $PARTNER_OTHER_API_KEY" -H 'X-Company-Id: 01J' -H 'Content-Type: application/json' --data-raw '{"name":"O'\\''Brien"}'`,
    );
    expect(line).not.toContain("secret-key");
  });

  it("curlLine redacts every other secret: headers by name, body fields by name, a text body as its size", () => {
    const line = curlLine({
      method: "POST",
      url: "http://h/v1/cards?page=1&api_key=tok-0",
      headers: {
        Authorization: "Bearer tok-1",
        Cookie: "session=tok-2",
        "X-Webhook-Secret": "tok-3",
        "Content-Type": "Application/JSON",
      },
      body: JSON.stringify({ name: "n", password: "tok-4", nested: [{ client_secret: "tok-5" }] }),
      account: "none",
    });
    expect(line).not.toMatch(/tok-\d/);
    expect(line).toContain(`-H 'Authorization: [REDACTED]'`);
    expect(line).toContain(`'http://h/v1/cards?page=1&api_key=%5BREDACTED%5D'`);
    expect(line).toContain(
      `--data-raw '{"name":"n","password":"[REDACTED]","nested":[{"client_secret":"[REDACTED]"}]}'`,
    );
    const text = curlLine({
      method: "POST",
      url: "http://h/x",
      headers: { "content-type": "text/plain" },
      body: "tok-6",
      account: "none",
    });
    expect(text).toContain("--data-raw '[5 bytes of text/plain, not shown: text/plain is neither JSON nor a form]'");
    const big = curlLine({
      method: "POST",
      url: "http://h/x",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: "x".repeat(70_000) }),
      account: "none",
    });
    expect(big).toContain("--data-raw '[70008 bytes of application/json, not shown: over 64 KiB]'");
  });

  it("verify --max-duration is a duration from 1 s to 24 h, else bad input naming it", async () => {
    for (const value of ["soon", "0", "25h", "500ms"]) {
      const run = await runInProcess(verifyCommand({ name: "partner-api verify" }), [
        "--base-url",
        "http://127.0.0.1:9",
        "--api-key",
        "k",
        "--max-duration",
        value,
      ]);
      expect(run.code, value).toBe(2);
      expect(run.stderr).toMatch(/--max-duration must be a duration from 1s to 24h/);
    }
  });
});

describe("parts: values, invalid text, findings and size limits", () => {
  it("valuesAt reads every value at a path, holdsString finds a string anywhere", () => {
    const body = {
      transactions: [{ transaction: { id: "a" }, data: { card: { id: "c" } } }, { transaction: { id: "b" } }],
    };
    expect(valuesAt(body, "transactions[].transaction.id")).toEqual(["a", "b"]);
    expect(valuesAt(body, "transactions[].data.card.id")).toEqual(["c"]);
    expect(valuesAt({ cards: "not a list" }, "cards[].id")).toEqual([]);
    expect(holdsString(body, "c")).toBe(true);
    expect(holdsString(body, "d")).toBe(false);
  });

  it("invalidParameterText gives text each schema refuses, and none for a free string", () => {
    expect(invalidParameterText({ type: "integer" })).toBe("1.5x");
    expect(invalidParameterText({ type: "string", enum: ["ASC", "DESC"] })).toBe("not-one-of-the-values");
    const ulid = invalidParameterText({ type: "string", pattern: "^[0-7][0-9A-HJKMNP-TV-Z]{25}$" })!;
    expect(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/.test(ulid)).toBe(false);
    expect(invalidParameterText({ type: "string" })).toBeUndefined();
  });

  it(`a body breaking one rule everywhere is reported as ${MAX_FINDINGS} findings and a count`, () => {
    const router = sandboxRouter();
    const match = router.match("GET", "/v1/cards");
    if (match.kind !== "operation") throw new Error("no listCards");
    const cards = Array.from({ length: 50 }, () => ({ id: "not-a-ulid-at-all-not-26ch" }));
    const findings = responseSchemaConformance(
      {
        probe: { operation: match.operation } as never,
        answer: { status: 200, headers: new Headers(), text: "", json: { cards }, ms: 1 },
      },
      { router },
    );
    expect(findings).toHaveLength(MAX_FINDINGS + 1);
    expect(findings.at(-1)!.message).toMatch(/^and \d+ more broken rules in the same body$/);
  });

  it("an answer over 10 MB is not read", async () => {
    const server = createServer((_, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1024 * 1024, "a");
      for (let i = 0; i <= MAX_ANSWER_BYTES / chunk.length; i++) response.write(chunk);
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const answer = await send({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        method: "GET",
        headers: {},
      } as never);
      expect(answer).toMatchObject({ status: 200, text: "", jsonError: "the body is over 10 MB and was not read" });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
