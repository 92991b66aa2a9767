/** The stub every runtime's scenario talks to: the contract's examples, paged, and its ids with a behaviour of their own. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ulid } from "../../generated/contract.ts";
import { STUB_IDS, type StubServer, startStubServer } from "./stub-server.ts";

let stub: StubServer;
const COMPANY = "01JD8X2K7P3M9Q4R6S8T0V2W4X";
const key = (name: string) => ({ "X-API-Key": name });

beforeAll(async () => {
  stub = await startStubServer();
});
afterAll(async () => {
  await stub?.close();
});

async function get(path: string, headers: Record<string, string>) {
  const response = await fetch(`${stub.url}${path}`, { headers });
  return { status: response.status, attempt: response.headers.get("x-stub-attempt"), body: await response.json() };
}

describe("the runtimes' stub server", () => {
  it("its own ids are ULIDs, so the client sends them", () => {
    for (const id of Object.values(STUB_IDS)) expect(id).toMatch(new RegExp(ulid.pattern));
  });

  it("answers an operation with its first example; a key is required, and a company for company-scope operations", async () => {
    const companies = await get("/v1/companies", key("a"));
    expect(companies.status).toBe(200);
    expect(companies.body.companies.length).toBeGreaterThan(0);
    expect((await get("/v1/companies", {})).status).toBe(401);
    expect((await get("/v1/card-bins", key("a"))).status).toBe(400);
    expect((await get("/v1/card-bins", { ...key("a"), "X-Company-Id": "nope" })).status).toBe(400);
    const bins = await get("/v1/card-bins", { ...key("a"), "X-Company-Id": COMPANY });
    expect(bins.status).toBe(200);
    expect(bins.body.cardBins.length).toBeGreaterThan(0);
    expect((await get("/v1/nothing", key("a"))).status).toBe(404);
    const created = await fetch(`${stub.url}/v1/cards`, {
      method: "POST",
      headers: { ...key("a"), "X-Company-Id": COMPANY, "Content-Type": "application/json" },
      body: "{not json",
    });
    expect(created.status).toBe(400);
  });

  it("pages the example's items by page and limit, with pagination where the example has it", async () => {
    const scoped = { ...key("pages"), "X-Company-Id": COMPANY };
    const pages = await Promise.all([1, 2, 3].map((page) => get(`/v1/cards?limit=1&page=${page}`, scoped)));
    expect(pages.map((page) => page.body.cards.length)).toEqual([1, 1, 0]);
    expect(pages[0]!.body.cards[0].id).not.toBe(pages[1]!.body.cards[0].id);
    const ledger = await get("/v1/card-spending-account/transactions?limit=2&page=2", scoped);
    expect(ledger.body.transactions).toHaveLength(1);
    expect(ledger.body.pagination).toEqual({ currentPage: 2, totalPages: 2, perPage: 2 });
    expect(stub.requestsOf("pages")).toContain(`GET /v1/cards?limit=1&page=2 company=${COMPANY}`);
  });

  it("fails the flaky id twice with 503, counting attempts per key; answers the missing id 404", async () => {
    const scoped = { ...key("flaky"), "X-Company-Id": COMPANY };
    const path = `/v1/card-holders/${STUB_IDS.flaky}`;
    const answers = [await get(path, scoped), await get(path, scoped), await get(path, scoped)];
    expect(answers.map((answer) => [answer.status, answer.attempt])).toEqual([
      [503, "1"],
      [503, "2"],
      [200, "3"],
    ]);
    expect((await get(path, { ...scoped, "X-API-Key": "other" })).status).toBe(503);
    expect((await get(`/transactions/${STUB_IDS.missing}`, key("flaky"))).status).toBe(404);
  });

  it("holds the slow id until the client gives up, and serves the files it is given", async () => {
    const controller = new AbortController();
    const held = fetch(`${stub.url}/v1/card-holders/${STUB_IDS.slow}`, {
      headers: { ...key("slow"), "X-Company-Id": COMPANY },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    await expect(held).rejects.toMatchObject({ name: "AbortError" });
    stub.serveFile("/runtime/x.js", "text/javascript", "globalThis.x = 1;");
    const file = await fetch(`${stub.url}/runtime/x.js`);
    expect(file.headers.get("content-type")).toBe("text/javascript");
    expect(await file.text()).toBe("globalThis.x = 1;");
  });
});
