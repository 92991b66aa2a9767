/**
 * The request log: what each entry holds, its filters (operationId, status, since, limit, api, the account),
 * newest first with a count, secrets redacted, the answer checked against the contract, its bound, clearing,
 * and the live stream (server-sent events) with Last-Event-ID.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, sandboxRouter, startSandbox } from "../../devkit/src/sandbox/index.ts";
import {
  accountFingerprint,
  type LoggedCall,
  MAX_LOGGED_BYTES,
  MAX_LOGGED_BYTES_PER_ACCOUNT,
  MAX_REQUEST_STREAMS,
  MAX_REQUEST_STREAMS_PER_ACCOUNT,
  RequestLog,
} from "../../devkit/src/sandbox/testmode/log.ts";
import { readServerSentEvents } from "../../devkit/src/sse.ts";
import { clientFor, request, seededCompany } from "./support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 41, startTime: "2031-03-01T00:00:00Z" });
});
afterAll(() => sandbox.stop());

const log = (apiKey: string | undefined, query = "") =>
  request(sandbox.url, "GET", `/_sandbox/requests${query}`, apiKey === undefined ? {} : { apiKey });

describe("entries", () => {
  it("hold the call and the answer, newest first, with the account as a fingerprint and the contract check", async () => {
    const key = "log-entries-key";
    const client = clientFor(sandbox.url, key);
    const { companyId } = await seededCompany(client);
    await client.get("/v1/card-bins?unused=1", { companyId });
    const answer = await log(key);
    expect(answer.status).toBe(200);
    const [newest] = answer.body.requests;
    expect(newest).toMatchObject({
      account: accountFingerprint(key),
      api: "partner",
      operationId: "listCardBins",
      method: "GET",
      path: "/v1/card-bins",
      query: "unused=1",
      status: 200,
      fault: null,
      contract: { valid: true, issues: [] },
      request: { headers: { "x-api-key": "[REDACTED]", "x-company-id": companyId } },
      response: { headers: { "content-type": "application/json" }, body: { cardBins: expect.any(Array) } },
    });
    expect(newest.account).toMatch(/^acct_[0-9a-f]{12}$/);
    expect(JSON.stringify(answer.body)).not.toContain(key);
    expect(newest.durationMs).toBeGreaterThanOrEqual(0);
    const ids = answer.body.requests.map((entry: { id: number }) => entry.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(answer.body.count).toBe(ids.length);
  });

  it("redact secrets in bodies: a webhook endpoint's secret, a card details token", async () => {
    const key = "log-secrets";
    const client = clientFor(sandbox.url, key);
    await client.post("/_sandbox/webhook-endpoints", { url: "http://127.0.0.1:9/hooks", secret: "whsec_do_not_log" });
    const { companyId, cardHolderId } = await seededCompany(client);
    const card = await client.post(
      "/v1/cards",
      { cardHolderId, name: "C", category: "Other", bin: "45671234" },
      { companyId },
    );
    const token = await client.post(`/v1/cards/${card.body.card.id}/details`, undefined, { companyId });
    expect(token.body.data.accessToken).toMatch(/^sbx_/);
    const text = (await log(key)).text;
    expect(text).not.toContain("whsec_do_not_log");
    expect(text).not.toContain(token.body.data.accessToken);
    const entries = (await log(key)).body.requests;
    const endpoint = entries.find((e: { operationId: string }) => e.operationId === "createWebhookEndpoint");
    expect(endpoint.request.body).toEqual({ url: "http://127.0.0.1:9/hooks", secret: "[REDACTED]" });
    const details = entries.find((e: { operationId: string }) => e.operationId === "createCardDetailsToken");
    expect(details.response.body.data.accessToken).toBe("[REDACTED]");
  });

  it("of a path or request the contract does not know: no operation, and no check", async () => {
    const key = "log-unknown";
    await clientFor(sandbox.url, key).get("/v1/nothing-here");
    await clientFor(sandbox.url, key).post("/_sandbox/clock/advance", { seconds: "soon" });
    const [invalid, unknown] = (await log(key)).body.requests;
    expect(unknown).toMatchObject({ api: null, operationId: null, status: 404, contract: null });
    expect(invalid).toMatchObject({
      api: "control",
      operationId: "advanceClock",
      status: 422,
      request: { body: { seconds: "soon" } },
      contract: { valid: true },
    });
  });
});

describe("filters", () => {
  it("by operationId, status, api, since and limit, with the count of all matches", async () => {
    const key = "log-filters";
    const client = clientFor(sandbox.url, key);
    for (let i = 0; i < 3; i++) await client.get("/v1/companies");
    // A company of no account (the examples' second company, which the sandbox does not seed): a 403.
    await client.get(`/v1/card-bins`, { companyId: "01JD8X3M8Q4N0R5S7T9V1W3X5Y" });
    const { now } = (await sandbox.control.GET("/_sandbox/clock")).data!;
    await sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds: 60 } });
    await client.get("/v1/companies");

    const byOperation = await log(key, "?operationId=listCompanies&limit=2");
    expect(byOperation.body.count).toBe(4);
    expect(byOperation.body.requests).toHaveLength(2);
    expect(byOperation.body.requests.every((e: { operationId: string }) => e.operationId === "listCompanies")).toBe(
      true,
    );
    expect((await log(key, "?status=403")).body.requests.map((e: { operationId: string }) => e.operationId)).toEqual([
      "listCardBins",
    ]);
    const since = await log(key, `?since=${encodeURIComponent(new Date(Date.parse(now) + 30_000).toISOString())}`);
    expect(since.body.count).toBe(1);
    expect(since.body.requests[0].at > now).toBe(true);
    // The control calls of this account are logged too (the advance had no key: not this account's).
    expect((await log(key, "?api=control")).body.count).toBe(0);
    expect((await log(undefined, "?api=control&operationId=advanceClock")).body.count).toBeGreaterThan(0);
  });

  it("are checked: a bad value is a 422 naming the parameter", async () => {
    const answer = await log(undefined, "?limit=0");
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toContain("limit");
    expect((await log(undefined, "?status=abc")).body.detail).toContain("status");
  });

  it("reading the log, the clock or the events is not logged; clearing forgets one account or all", async () => {
    const key = "log-clear";
    const client = clientFor(sandbox.url, key);
    await client.get("/v1/companies");
    await client.get("/_sandbox/events");
    await client.get("/_sandbox/requests");
    expect((await log(key)).body.requests.map((e: { operationId: string }) => e.operationId)).toEqual([
      "listCompanies",
    ]);
    await clientFor(sandbox.url, "log-clear-other").get("/v1/companies");
    expect((await request(sandbox.url, "DELETE", "/_sandbox/requests", { apiKey: key })).status).toBe(204);
    expect((await log(key)).body.count).toBe(0);
    expect((await log("log-clear-other")).body.count).toBe(1);
  });
});

describe("bounds", () => {
  it("serves at most MAX_REQUEST_STREAMS streams at once, and MAX_REQUEST_STREAMS_PER_ACCOUNT to one account", () => {
    const requests = new RequestLog(sandboxRouter());
    const follow = (account: string | undefined) =>
      requests.follow({ filter: { account }, send: () => undefined }, undefined);
    const mine = Array.from({ length: MAX_REQUEST_STREAMS_PER_ACCOUNT }, () => follow("acct_000000000001"));
    expect(requests.streamRefusal("acct_000000000001")).toMatch(
      /account acct_000000000001 already holds 10 request streams/,
    );
    expect(requests.streamRefusal(undefined)).toBeUndefined();
    mine[0]!();
    mine[0]!();
    expect(requests.streamRefusal("acct_000000000001")).toBeUndefined();
    // Stopping twice counts once: 9 of the account's are open, so 91 others fill the sandbox.
    let others = 0;
    while (requests.streamRefusal(`other-${others}`) === undefined) follow(`other-${others++}`);
    expect(others).toBe(MAX_REQUEST_STREAMS - MAX_REQUEST_STREAMS_PER_ACCOUNT + 1);
    expect(requests.streamRefusal(undefined)).toMatch(/100 request streams are open/);
  });

  /** A call of `account` to an unknown path, with a request body of `bodyBytes` bytes of JSON. */
  const call = (account: string | null, query: string, bodyBytes = 0): LoggedCall => ({
    atMs: 0,
    account,
    operation: undefined,
    method: "POST",
    path: "/v1/nowhere",
    query,
    scenario: undefined,
    requestHeaders: bodyBytes ? { "content-type": "application/json" } : {},
    requestBody: bodyBytes ? Buffer.from(JSON.stringify("x".repeat(bodyBytes - 2))) : undefined,
    status: 404,
    responseHeaders: {},
    responseText: undefined,
    durationMs: 1,
    fault: null,
  });
  const queries = (requests: RequestLog, account?: string) =>
    requests.list({ account }, 10_000).requests.map((entry) => entry.query);

  it("keeps requestLogSize calls per account: one calling in a loop pushes out only its own", () => {
    const requests = new RequestLog(sandboxRouter(), 3);
    requests.record(call("acct_quiet", "q=1"));
    requests.record(call(null, "anon=1"));
    for (let i = 0; i < 50; i++) requests.record(call("acct_loud", `n=${i}`));
    expect(queries(requests, "acct_quiet")).toEqual(["q=1"]);
    expect(queries(requests, "acct_loud")).toEqual(["n=49", "n=48", "n=47"]);
    expect(queries(requests)).toEqual(["n=49", "n=48", "n=47", "anon=1", "q=1"]);
    expect(requests.list({}, 2)).toMatchObject({ count: 5 });
    requests.clear("acct_loud");
    expect(queries(requests)).toEqual(["anon=1", "q=1"]);
    expect(requests.heldBytes("acct_loud")).toBe(0);
    expect(requests.heldBytes()).toBe(requests.heldBytes("acct_quiet") + requests.heldBytes(null));
  });

  it("bounds the bytes of one account, and of all, taking from the account that holds the most", () => {
    expect(new RequestLog(sandboxRouter()).bounds).toEqual({
      maxBytes: MAX_LOGGED_BYTES,
      maxBytesPerAccount: MAX_LOGGED_BYTES_PER_ACCOUNT,
    });
    const bounds = { maxBytes: 64 * 1024, maxBytesPerAccount: 16 * 1024 };
    const requests = new RequestLog(sandboxRouter(), 100_000, bounds);
    const big = 2 * 1024;
    requests.record(call("acct_small", "keep=1", big));
    for (let i = 0; i < 40; i++) requests.record(call("acct_big", `n=${i}`, big));
    expect(requests.heldBytes("acct_big")).toBeLessThanOrEqual(bounds.maxBytesPerAccount);
    expect(queries(requests, "acct_big")[0]).toBe("n=39");
    expect(queries(requests, "acct_big")).not.toContain("n=30");
    // Enough accounts at their own bound to pass the bound of all: the small one keeps its call.
    for (let a = 0; a < 5; a++) for (let i = 0; i < 40; i++) requests.record(call(`acct_${a}`, `n=${i}`, big));
    expect(requests.heldBytes()).toBeLessThanOrEqual(bounds.maxBytes);
    expect(queries(requests, "acct_small")).toEqual(["keep=1"]);
    expect(queries(requests, "acct_4")[0]).toBe("n=39");
    // One call larger than its account's bound is still kept: the newest of an account always is.
    requests.record(call("acct_huge", "one=1", 40 * 1024));
    expect(queries(requests, "acct_huge")).toEqual(["one=1"]);
    expect(requests.heldBytes()).toBeLessThanOrEqual(bounds.maxBytes);
    // Many accounts of one call each are bounded in all as well: the oldest accounts' calls go.
    for (let a = 0; a < 200; a++) requests.record(call(`acct_many_${a}`, "one=1", big));
    expect(requests.heldBytes()).toBeLessThanOrEqual(bounds.maxBytes);
    expect(queries(requests, "acct_many_199")).toEqual(["one=1"]);
    expect(queries(requests, "acct_many_0")).toEqual([]);
    expect(requests.heldBytes("acct_many_0")).toBe(0);
  });

  it("keeps the last requestLogSize calls, and bodies up to 64 KiB", async () => {
    const small = await startSandbox({ port: 0, requestLogSize: 3 });
    try {
      const client = clientFor(small.url, "bounded");
      for (let i = 0; i < 5; i++) await client.get(`/v1/companies?n=${i}`);
      const big = "x".repeat(70 * 1024);
      await client.post("/_sandbox/webhook-endpoints", { url: "http://127.0.0.1:9/", secret: "s", note: big });
      const answer = await request(small.url, "GET", "/_sandbox/requests", { apiKey: "bounded" });
      expect(answer.body.count).toBe(3);
      expect(answer.body.requests.map((e: { query?: string }) => e.query)).toEqual([undefined, "n=4", "n=3"]);
      expect(answer.body.requests[0].request).toMatchObject({ truncated: true });
      expect(answer.body.requests[0].request.body).toHaveLength(64 * 1024);
    } finally {
      await small.stop();
    }
    await expect(startSandbox({ port: 0, requestLogSize: -1 })).rejects.toThrow(
      /requestLogSize must be a whole number/,
    );
  });
});

/** The first `count` `request` events of a stream (the devkit's one server-sent-events reader), their data and ids. */
async function readEvents(response: Response, count: number): Promise<{ id: number; data: Record<string, any> }[]> {
  const events: { id: number; data: Record<string, any> }[] = [];
  for await (const event of readServerSentEvents(response.body!)) {
    if (event.event === "request") events.push({ id: Number(event.id), data: JSON.parse(event.data) });
    if (events.length === count) break;
  }
  return events;
}

describe("the live stream", () => {
  it("sends each matching call as it is answered, as a SandboxRequest", async () => {
    const key = "stream-live";
    const client = clientFor(sandbox.url, key);
    const controller = new AbortController();
    const response = await fetch(`${sandbox.url}/_sandbox/requests/stream?operationId=listCompanies`, {
      headers: { "X-API-Key": key },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reading = readEvents(response, 2);
    await client.get("/v1/card-holders-none");
    await client.get("/v1/companies");
    await clientFor(sandbox.url, "stream-someone-else").get("/v1/companies");
    await client.get("/v1/companies?second=1");
    const events = await reading;
    controller.abort();
    expect(events.map((event) => [event.data.operationId, event.data.query ?? ""])).toEqual([
      ["listCompanies", ""],
      ["listCompanies", "second=1"],
    ]);
    expect(events.map((event) => event.id)).toEqual(events.map((event) => event.data.id));
    // The same entry the list gives.
    const listed = (await log(key, "?operationId=listCompanies&limit=1")).body.requests[0];
    expect(events[1]!.data).toEqual(listed);
  });

  it("with Last-Event-ID, sends the calls after that id still in the log first", async () => {
    const key = "stream-resume";
    const client = clientFor(sandbox.url, key);
    await client.get("/v1/companies?n=1");
    await client.get("/v1/companies?n=2");
    await client.get("/v1/companies?n=3");
    const [, second] = (await log(key)).body.requests;
    const controller = new AbortController();
    const response = await fetch(`${sandbox.url}/_sandbox/requests/stream`, {
      headers: { "X-API-Key": key, "Last-Event-ID": String(second.id) },
      signal: controller.signal,
    });
    const events = await readEvents(response, 1);
    controller.abort();
    expect(events[0]!.data.query).toBe("n=3");
  });
});
