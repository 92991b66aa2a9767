import { describe, expect, test } from "vitest";
import { DEFAULT_RETRY as ROOT_DEFAULT_RETRY } from "../../src/index.ts";
import { backoffMs, DEFAULT_RETRY, retryAfterMs, sendWithRetries, settleRetry } from "../../src/retry.ts";
import { CARD, json, recordingFetch, testClient } from "./helpers.ts";

describe("retries through the client", () => {
  test("a GET (x-idempotent) is retried on 503 and 429 until it succeeds", async () => {
    const statuses = [503, 429, 200];
    const { company, sent } = testClient((_, attempt) =>
      json(attempt === 3 ? { cardBins: [] } : {}, statuses[attempt - 1]),
    );
    const { data, response } = await company.GET("/v1/card-bins");
    expect(response.status).toBe(200);
    expect(data).toEqual({ cardBins: [] });
    expect(sent).toHaveLength(3);
  });

  test("attempts are bounded: the last 5xx answer is returned", async () => {
    const { company, sent } = testClient(() => json({ message: "down" }, 502));
    const { error, response } = await company.GET("/v1/card-bins");
    expect(response.status).toBe(502);
    expect(error).toEqual({ message: "down" });
    expect(sent).toHaveLength(3);
  });

  test("network errors are retried, and the last one is thrown", async () => {
    const { company, sent } = testClient(() => {
      throw new TypeError("fetch failed");
    });
    await expect(company.GET("/v1/card-bins")).rejects.toThrow("fetch failed");
    expect(sent).toHaveLength(3);
    const flaky = testClient((_, attempt) => {
      if (attempt === 1) throw new TypeError("fetch failed");
      return json({ cardBins: [] });
    });
    expect((await flaky.company.GET("/v1/card-bins")).data).toEqual({ cardBins: [] });
    expect(flaky.sent).toHaveLength(2);
  });

  test("an operation not marked safe to repeat is sent once", async () => {
    const { company, sent } = testClient(() => json({}, 503));
    const result = await company.POST("/v1/cards", {
      body: { cardHolderId: CARD, name: "n", category: "Other", bin: "489514" },
    });
    expect(result.response.status).toBe(503);
    expect(sent).toHaveLength(1);
    const failing = testClient(() => {
      throw new TypeError("fetch failed");
    });
    await expect(
      failing.company.PATCH("/v1/cards/{cardId}/unfreeze", { params: { path: { cardId: CARD } }, body: {} }),
    ).rejects.toThrow();
    expect(failing.sent).toHaveLength(1);
  });

  test("a POST marked x-idempotent (openWalletAddress) is retried with its body intact", async () => {
    const { company, sent } = testClient((_, attempt) =>
      attempt < 3 ? json({}, 500) : json({ address: { address: "0xabc", chain: "ETH" } }, 201),
    );
    const { data } = await company.POST("/v1/wallets/{walletId}/addresses", {
      params: { path: { walletId: "w1" } },
      body: { chain: "ETH" },
    });
    expect(data).toEqual({ address: { address: "0xabc", chain: "ETH" } });
    expect(sent.map((s) => s.body)).toEqual(['{"chain":"ETH"}', '{"chain":"ETH"}', '{"chain":"ETH"}']);
    expect(
      sent.every((s) => s.headers.get("Content-Type") === "application/json" && s.headers.get("X-Company-Id")),
    ).toBe(true);
  });

  test("4xx other than 429 is not retried", async () => {
    const { client, sent } = testClient(() => json({}, 404));
    await client.GET("/transactions/{transactionId}", { params: { path: { transactionId: CARD } } });
    expect(sent).toHaveLength(1);
  });

  test("retry: false turns retries off", async () => {
    const { company, sent } = testClient(() => json({}, 503), { retry: false });
    await company.GET("/v1/card-bins");
    expect(sent).toHaveLength(1);
  });

  test("the caller's abort ends the retries", async () => {
    const controller = new AbortController();
    const { company, sent } = testClient(
      () => {
        controller.abort();
        return json({}, 503);
      },
      { retry: { attempts: 5, baseDelayMs: 50, maxDelayMs: 50 } },
    );
    await expect(company.GET("/v1/card-bins", { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(sent).toHaveLength(1);
  });
});

describe("sendWithRetries", () => {
  const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 };
  const request = () => new Request("http://127.0.0.1:9/v1/card-bins");

  test("waits with exponential backoff and jitter between attempts", async () => {
    const waits: number[] = [];
    const { fetch, sent } = recordingFetch(() => json({}, 500));
    const tools = { sleep: async (ms: number) => void waits.push(ms), random: () => 0.5 };
    expect((await sendWithRetries(fetch, request(), policy, tools)).status).toBe(500);
    expect(sent).toHaveLength(4);
    expect(waits).toEqual([75, 150, 300]);
  });

  test("honours Retry-After (seconds and HTTP date) when it is longer than the backoff", async () => {
    const waits: number[] = [];
    const date = new Date(Date.now() + 900).toUTCString();
    const answers = [json({}, 429, { "Retry-After": "1" }), json({}, 503, { "Retry-After": date }), json({ ok: true })];
    const { fetch } = recordingFetch((_, attempt) => answers[attempt - 1]!);
    const tools = { sleep: async (ms: number) => void waits.push(ms), random: () => 0 };
    expect((await sendWithRetries(fetch, request(), { ...policy, maxDelayMs: 5_000 }, tools)).status).toBe(200);
    expect(waits[0]).toBe(1_000);
    expect(waits[1]).toBeGreaterThan(0);
    expect(waits[1]).toBeLessThanOrEqual(1_000);
  });

  test("a Retry-After longer than maxDelayMs ends the retries and returns that answer", async () => {
    const { fetch, sent } = recordingFetch(() => json({}, 429, { "Retry-After": "120" }));
    const response = await sendWithRetries(fetch, request(), policy, { sleep: async () => undefined });
    expect(response.status).toBe(429);
    expect(sent).toHaveLength(1);
  });

  test("each attempt after the first is made by next() from the previous one", async () => {
    const { fetch, sent } = recordingFetch((_, attempt) => json({}, attempt < 3 ? 503 : 200));
    const made: string[] = [];
    const next = (previous: Request) => {
      made.push(previous.headers.get("X-Attempt") ?? "1");
      const following = new Request(previous);
      following.headers.set("X-Attempt", String(made.length + 1));
      return following;
    };
    const response = await sendWithRetries(fetch, request(), policy, { sleep: async () => undefined, next });
    expect(response.status).toBe(200);
    expect(made).toEqual(["1", "2"]);
    expect(sent.map((s) => s.headers.get("X-Attempt"))).toEqual([null, "2", "3"]);
  });

  test("backoffMs grows exponentially, stays within [ceiling/2, ceiling] and is capped", () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, policy, () => 0.999999))).toEqual([100, 200, 400, 800, 1000]);
    expect([1, 2, 3].map((n) => backoffMs(n, policy, () => 0))).toEqual([50, 100, 200]);
    expect(DEFAULT_RETRY).toEqual({ attempts: 3, baseDelayMs: 300, maxDelayMs: 10_000 });
  });

  test("retryAfterMs reads delta-seconds and dates, ignores garbage", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs("3", now)).toBe(3_000);
    expect(retryAfterMs("Wed, 01 Jan 2025 00:00:10 GMT", now)).toBe(10_000);
    expect(retryAfterMs("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

describe("the retry option", () => {
  test("is settled once: defaults filled in, unknown keys and bad numbers refused", () => {
    expect(settleRetry(undefined)).toBe(DEFAULT_RETRY);
    expect(settleRetry(false)).toBe(false);
    expect(settleRetry({ attempts: 5 })).toEqual({ attempts: 5, baseDelayMs: 300, maxDelayMs: 10_000 });
    expect(() => settleRetry({ attempts: 1.5 })).toThrow(
      /retry.attempts must be a whole number from 1 to 10, got number 1.5/,
    );
    expect(() => settleRetry("often" as never)).toThrow(/retry must be false or an object .*got "often"/);
  });

  test("DEFAULT_RETRY is frozen: a consumer cannot change every client's defaults through it", () => {
    expect(ROOT_DEFAULT_RETRY).toBe(DEFAULT_RETRY);
    expect(Object.isFrozen(ROOT_DEFAULT_RETRY)).toBe(true);
    expect(() => {
      (ROOT_DEFAULT_RETRY as { attempts: number }).attempts = 10;
    }).toThrow(TypeError);
    expect(settleRetry(undefined)).toEqual({ attempts: 3, baseDelayMs: 300, maxDelayMs: 10_000 });
  });
});
