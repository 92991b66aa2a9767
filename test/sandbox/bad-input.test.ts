/**
 * Bad input gets the status codes `npm run mock` (Prism) gives it, as problem documents naming the bad input;
 * bad options to startSandbox throw errors naming the option.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { clientFor, request, seededCompany } from "./support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 1 });
});
afterAll(() => sandbox.stop());

describe("requests the contract rejects", () => {
  it("no X-API-Key: 401", async () => {
    const answer = await request(sandbox.url, "GET", "/v1/companies");
    expect(answer.status).toBe(401);
    expect(answer.contentType).toBe("application/problem+json");
    expect(answer.body.detail).toContain("X-API-Key");
  });

  it("malformed JSON: 400", async () => {
    const answer = await request(sandbox.url, "POST", "/v1/companies", {
      apiKey: "k",
      rawBody: '{"name": "unterminated',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toContain("not JSON");
  });

  it("a body that breaks the schema: 422 naming each broken rule", async () => {
    const answer = await request(sandbox.url, "POST", "/v1/companies", { apiKey: "k", body: { name: "Only a name" } });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toContain("countryCode");
    expect(answer.body.validation.length).toBeGreaterThan(1);
  });

  it("a wrong content type: 415, or 422 where the operation declares 422 (as Prism)", async () => {
    const onboard = await request(sandbox.url, "POST", "/v1/companies", {
      apiKey: "k",
      rawBody: "{}",
      contentType: "text/plain",
    });
    expect(onboard.status).toBe(415);
    const { companyId } = await seededCompany(clientFor(sandbox.url, "k"));
    const card = await request(sandbox.url, "POST", "/v1/cards", {
      apiKey: "k",
      companyId,
      rawBody: "{}",
      contentType: "text/plain",
    });
    expect(card.status).toBe(422);
  });

  it("a bad path id, a bad query value, a missing company header: 422", async () => {
    expect((await request(sandbox.url, "GET", "/transactions/not-a-ulid", { apiKey: "k" })).status).toBe(422);
    const { companyId } = await seededCompany(clientFor(sandbox.url, "k"));
    const page = await request(sandbox.url, "GET", "/v1/cards?page=abc", { apiKey: "k", companyId });
    expect(page.status).toBe(422);
    expect(page.body.detail).toContain("page");
    const noCompany = await request(sandbox.url, "GET", "/v1/card-bins", { apiKey: "k" });
    expect(noCompany.status).toBe(422);
    expect(noCompany.body.detail).toContain("X-Company-Id");
  });

  it("a browser's preflight is answered with CORS headers, and answers carry them", async () => {
    const preflight = await fetch(`${sandbox.url}/v1/companies`, {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:3000", "Access-Control-Request-Method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    const answer = await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": "k" } });
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("an unknown path: 404; a known path with an unknown method: 405", async () => {
    expect((await request(sandbox.url, "GET", "/v1/no-such-resource", { apiKey: "k" })).status).toBe(404);
    expect((await request(sandbox.url, "DELETE", "/v1/companies", { apiKey: "k" })).status).toBe(405);
    // RFC 9110: a 405 names the methods the path has.
    const answer = await fetch(`${sandbox.url}/v1/cards/01JD8X9N4E2R6T8V0W2Y4Z6A8C/details`, {
      headers: { "X-API-Key": "k" },
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST");
    expect((await fetch(`${sandbox.url}/v1/companies`, { method: "PUT" })).headers.get("allow")).toBe("GET, POST");
  });

  it("a body over 10 MB: 413, and the sandbox still answers", async () => {
    const answer = await request(sandbox.url, "POST", "/v1/companies", {
      apiKey: "k",
      rawBody: `"${"x".repeat(11 * 1024 * 1024)}"`,
    });
    expect(answer.status).toBe(413);
    expect((await request(sandbox.url, "GET", "/v1/companies", { apiKey: "k" })).status).toBe(200);
  });

  it("unknown ids of the account: 404 naming the id", async () => {
    const client = clientFor(sandbox.url, "k");
    const { companyId } = await seededCompany(client);
    const unknown = "01JD8X4M6Q2V7R9T3W5Y0Z1A2B";
    const route = await client.get(`/v1/payment-routes/${unknown}`, { companyId });
    expect(route.status).toBe(404);
    expect(route.body.detail).toContain(unknown);
    expect((await client.post(`/_sandbox/payment-routes/${unknown}/deposits`, { amount: 1 })).status).toBe(404);
    expect((await client.post(`/_sandbox/events/evt_${unknown}/resend`)).status).toBe(404);
    expect((await client.delete(`/_sandbox/webhook-endpoints/${unknown}`)).status).toBe(404);
  });
});

describe("startSandbox options", () => {
  it.each<[SandboxOptions, string]>([
    [{ port: -1 }, "port"],
    [{ port: 0, seed: 1.5 }, "seed"],
    [{ port: 0, speed: 0 }, "speed"],
    [{ port: 0, cardIssuingSeconds: -1 }, "cardIssuingSeconds"],
    [{ port: 0, webhooks: { url: "ftp://x", secret: "s" } }, "webhooks.url"],
    [{ port: 0, webhooks: { url: "http://x", secret: "" } }, "webhooks.secret"],
    [{ port: 0, startTime: "yesterday" }, "startTime"],
    [{ port: 0, colour: "blue" } as SandboxOptions, "colour"],
  ])("%j is refused, naming %s", async (options, name) => {
    await expect(startSandbox(options)).rejects.toThrow(name);
  });
});
