import { describe, expect, test } from "vitest";
import { DEFAULT_RETRY as ROOT_DEFAULT_RETRY } from "../../src/index.ts";
import { backoffMs, DEFAULT_RETRY, retryAfterMs, settleRetry, sleep, waitBeforeRetry } from "../../src/retry.ts";
import { CARD, json, testClient } from "./helpers.ts";

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

describe("the retry policy", () => {
  const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 };

  test("waits with exponential backoff and jitter between attempts, and not after the last", () => {
    const answer = json({}, 500);
    expect([1, 2, 3, 4].map((attempt) => waitBeforeRetry(attempt, policy, answer, () => 0.5))).toEqual([
      75,
      150,
      300,
      undefined,
    ]);
    expect([1, 3, 4].map((attempt) => waitBeforeRetry(attempt, policy, undefined, () => 0.5))).toEqual([
      75,
      300,
      undefined,
    ]);
  });

  test("only 429 and 5xx answers are retried", () => {
    expect(waitBeforeRetry(1, policy, json({}, 429))).toBeGreaterThan(0);
    expect(waitBeforeRetry(1, policy, json({}, 503))).toBeGreaterThan(0);
    for (const status of [200, 201, 400, 404, 422])
      expect(waitBeforeRetry(1, policy, json({}, status))).toBeUndefined();
  });

  test("honours Retry-After (seconds and HTTP date) when it is longer than the backoff", () => {
    const roomy = { ...policy, maxDelayMs: 5_000 };
    expect(waitBeforeRetry(1, roomy, json({}, 429, { "Retry-After": "1" }), () => 0)).toBe(1_000);
    const date = new Date(Date.now() + 900).toUTCString();
    const wait = waitBeforeRetry(2, roomy, json({}, 503, { "Retry-After": date }), () => 0);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(1_000);
  });

  test("a Retry-After longer than maxDelayMs ends the retries: the answer stands", () => {
    expect(waitBeforeRetry(1, policy, json({}, 429, { "Retry-After": "120" }))).toBeUndefined();
  });

  test("sleep waits, and a caller's abort ends it at once", async () => {
    await expect(sleep(1, new AbortController().signal)).resolves.toBeUndefined();
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
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
