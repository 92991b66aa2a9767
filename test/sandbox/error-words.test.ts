/**
 * Every 4xx of the sandbox's validation names the field, the value received and what is allowed, in words: for
 * every enum, pattern, format and type of every request body field and query parameter of the partner contract,
 * and every ULID path parameter (all derived from the bundle, none listed by hand), and the hosted verification
 * form's `action`. No validator phrase ("must match \"then\" schema", "must be equal to one of the allowed
 * values") and no internal schema address (`https://sandbox.invalid/…`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followRefs, isObject } from "../../devkit/src/contract/refs.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { operationExamples } from "../../scripts/lib/docs/samples.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { requestOf } from "../docs/support/live-sandbox.ts";
import { clientFor, ONBOARD_BODY } from "./support.ts";

const document = loadDocument();
const BAD = "not-an-allowed-value!";
const VALIDATOR_WORDS = /must match "|must be equal to one of|must match format|must match pattern|sandbox\.invalid/;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 5 });
});
afterAll(() => sandbox.stop());

interface Rule {
  where: string;
  kind: string;
  /** The words the answer must hold besides the field and the value: the enum's values, say. */
  allowed: string[];
}

/** The rule of a schema worth breaking, and a value that breaks it; undefined when it takes any string. */
function ruleOf(schema: any): { kind: string; allowed: string[]; bad: unknown } | undefined {
  const resolved: any = followRefs(document, schema);
  if (!isObject(resolved)) return undefined;
  if (Array.isArray(resolved.enum)) return { kind: "enum", allowed: resolved.enum.map(String), bad: BAD };
  if (typeof resolved.pattern === "string") return { kind: "pattern", allowed: [String(resolved.pattern)], bad: BAD };
  if (typeof resolved.format === "string" && ["date", "date-time"].includes(resolved.format))
    return { kind: `format ${resolved.format}`, allowed: ["YYYY-MM-DD"], bad: BAD };
  if (resolved.type === "boolean") return { kind: "type boolean", allowed: ["a boolean"], bad: BAD };
  if (resolved.type === "integer" || resolved.type === "number")
    return {
      kind: `type ${resolved.type}`,
      allowed: [`${resolved.type === "integer" ? "an" : "a"} ${resolved.type}`],
      bad: BAD,
    };
  if (resolved.type === "array" && resolved.items) {
    const inner = ruleOf(resolved.items);
    return inner ? { ...inner, kind: `items ${inner.kind}`, bad: [inner.bad] } : undefined;
  }
  return undefined;
}

describe("every validation 4xx says what is allowed", () => {
  it("for every rule of every body field, query parameter and ULID path parameter of the partner contract", async () => {
    const checked: Rule[] = [];
    for (const operation of operationExamples(document)) {
      const raw: any = followRefs(document, (document as any).paths[operation.path][operation.method]);
      const parameters = [...(raw.parameters ?? [])].map((parameter: any) => followRefs<any>(document, parameter));
      const cases: Array<{ field: string; bad: unknown; rule: ReturnType<typeof ruleOf>; apply: (r: any) => void }> =
        [];
      for (const parameter of parameters) {
        const rule = ruleOf(parameter.schema);
        if (!rule || parameter.in === "header") continue;
        const text = String(Array.isArray(rule.bad) ? rule.bad[0] : rule.bad);
        if (parameter.in === "query")
          cases.push({
            field: parameter.name,
            bad: text,
            rule,
            apply: (request) => request.query.set(parameter.name, text),
          });
        if (parameter.in === "path")
          cases.push({
            field: parameter.name,
            bad: text,
            rule,
            apply: (request) => request.setPath(parameter.name, text),
          });
      }
      const bodySchema: any = followRefs(document, raw.requestBody?.content?.["application/json"]?.schema);
      for (const [name, property] of Object.entries<any>(bodySchema?.properties ?? {})) {
        const rule = ruleOf(property);
        if (!rule || !operation.body) continue;
        cases.push({
          field: name,
          bad: rule.bad,
          rule,
          apply: (request) => {
            request.body = JSON.stringify({ ...(operation.body!.value as object), [name]: rule.bad });
          },
        });
      }
      for (const { field, bad, rule, apply } of cases) {
        const request = requestOf(operation, "sk_test_error_words");
        apply(request);
        const answer = await fetch(sandbox.url + request.target(), {
          method: operation.method.toUpperCase(),
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
        });
        const where = `${operation.operationId} ${field} (${rule!.kind})`;
        const text = await answer.text();
        expect(answer.status, `${where}: ${text}`).toBeGreaterThanOrEqual(400);
        expect(answer.status, `${where}: ${text}`).toBeLessThan(500);
        expect(text, where).not.toMatch(VALIDATOR_WORDS);
        const body = JSON.parse(text);
        const messages: string[] = (body.validation ?? []).map((issue: { message: string }) => issue.message);
        // Every message about the field, joined: a ULID breaks its length and its pattern, say.
        const mine =
          messages
            .filter(
              (message) =>
                message.includes(field) && message.includes(JSON.stringify(Array.isArray(bad) ? bad[0] : bad)),
            )
            .join("; ") || undefined;
        expect(mine, `${where}: ${body.detail}`).toBeDefined();
        expect(mine, where).toMatch(/allowed: /);
        for (const allowed of rule!.allowed)
          expect(
            `${mine}`.includes(allowed) || `${mine}`.includes(JSON.stringify(allowed)),
            `${where}: ${mine} names ${allowed}`,
          ).toBe(true);
        for (const issue of body.validation ?? []) expect(issue.rule ?? "", where).not.toMatch(/^https?:/);
        checked.push({ where, kind: rule!.kind, allowed: rule!.allowed });
      }
    }
    // Every kind of rule the contract has was reached.
    const kinds = new Set(checked.map((rule) => rule.kind.replace(/^items /, "")));
    for (const kind of ["enum", "pattern", "format date", "type boolean", "type integer", "type number"])
      expect(kinds, kind).toContain(kind);
  });

  it("the request-level 4xx name what was received and what is allowed: key, path, method, media type", async () => {
    const json = { "X-API-Key": "sk_test_error_words_request", "Content-Type": "application/json" };
    const cases: Array<[string, RequestInit, number, string[]]> = [
      ["/v1/companies", {}, 401, ["X-API-Key", "got nothing", "allowed: any key"]],
      ["/v1/nothing", { headers: json }, 404, ['"/v1/nothing"', "allowed:", "/v1/companies", "/v1/cards"]],
      ["/v1/companies", { method: "DELETE", headers: json }, 405, ["DELETE", "allowed: GET, POST"]],
      [
        "/v1/companies",
        { method: "POST", headers: { ...json, "Content-Type": "text/plain" }, body: "x" },
        415,
        ["Content-Type", '"text/plain"', "allowed: application/json"],
      ],
    ];
    for (const [target, init, status, words] of cases) {
      const answer = await fetch(`${sandbox.url}${target}`, init);
      const body = await answer.json();
      expect(answer.status, JSON.stringify(body)).toBe(status);
      for (const word of words) expect(body.detail, target).toContain(word);
      expect(body.detail).not.toMatch(VALIDATOR_WORDS);
    }
  });

  it("the hosted verification form names the action received and the actions it takes", async () => {
    const client = clientFor(sandbox.url, "sk_test_error_words_kyc");
    const company = (await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] })).body.company;
    const answer = await fetch(company.swap.kycUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "action=begin",
    });
    const text = await answer.text();
    expect(answer.status, text).toBe(422);
    expect(text).not.toMatch(VALIDATOR_WORDS);
    for (const word of ["action", '\\"begin\\"', "start", "submit", "complete", "reject", "pause"])
      expect(text, word).toContain(word);
  });
});
