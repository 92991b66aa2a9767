import { describe, expect, test } from "vitest";
import { DEFAULT_TIMEOUT_MS, RequestTimeoutError } from "../../src/index.ts";
import { Deadline } from "../../src/timeout.ts";
import { type Sent, testClient } from "./helpers.ts";

/** Answers only when the request is aborted: with the abort reason, as fetch does. */
function hang(sent: Sent): Promise<Response> {
  return new Promise((_, reject) => {
    if (sent.signal.aborted) reject(sent.signal.reason);
    sent.signal.addEventListener("abort", () => reject(sent.signal.reason), { once: true });
  });
}

describe("timeouts", () => {
  test("the default is documented as 30 s", () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
  });

  test("a request that gets no answer in timeoutMs fails with a TimeoutError naming the call", async () => {
    const { company, sent } = testClient(hang, { timeoutMs: 30, retry: false });
    const started = performance.now();
    const call = company.POST("/v1/cards", {
      body: { cardHolderId: "01JD8X5H3J7K9M1N3P5Q7R9S1T", name: "n", category: "Other", bin: "1" },
    });
    await expect(call).rejects.toBeInstanceOf(RequestTimeoutError);
    await expect(call).rejects.toThrow(
      "partner-api-client: POST /api/v1/cards got no response within 30 ms (timeoutMs)",
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(sent).toHaveLength(1);
  });

  test("each attempt of an operation safe to repeat has its own timeout", async () => {
    const { company, sent } = testClient(hang, {
      timeoutMs: 20,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });
    await expect(company.GET("/v1/card-bins")).rejects.toMatchObject({ name: "TimeoutError", timeoutMs: 20 });
    expect(sent).toHaveLength(2);
  });

  test("the caller's signal is combined with the timeout: aborting it aborts the request", async () => {
    const controller = new AbortController();
    const { company, sent } = testClient(
      (entry) => {
        setTimeout(() => controller.abort(), 5);
        return hang(entry);
      },
      { timeoutMs: 10_000 },
    );
    const call = company.GET("/v1/card-bins", { signal: controller.signal });
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    await expect(call).rejects.not.toBeInstanceOf(RequestTimeoutError);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.signal.aborted).toBe(true);
  });

  test("a deadline rejects a bad timeout", () => {
    expect(() => new Deadline(-1)).toThrow(/timeoutMs must be a whole number of milliseconds/);
  });

  test("a response body that does not arrive in time also fails with a TimeoutError", async () => {
    const { company } = testClient(
      (sent) =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode("{"));
              sent.signal.addEventListener("abort", () => c.error(sent.signal.reason));
            },
          }),
          { headers: { "Content-Type": "application/json" } },
        ),
      { timeoutMs: 30, retry: false },
    );
    await expect(company.GET("/v1/card-bins")).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  test("the timer is cleared when the call ends (nothing keeps a finished call alive)", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;
    const { company } = testClient(undefined, { timeoutMs: 60_000 });
    const before = timers();
    const deadline = new Deadline(60_000);
    deadline.start();
    expect(timers()).toBe(before + 1); // the count sees a running deadline
    deadline.clear();
    expect(timers()).toBe(before);
    await company.GET("/v1/card-bins");
    await company.POST("/v1/cards/{cardId}/details", { params: { path: { cardId: "01JD8X9N4E2R6T8V0W2Y4Z6A8C" } } });
    expect(timers()).toBe(before);
  });
});
