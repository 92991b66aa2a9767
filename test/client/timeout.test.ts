import { getEventListeners } from "node:events";
import { afterEach, describe, expect, test, vi } from "vitest";
import { DEFAULT_TIMEOUT_MS, RequestTimeoutError } from "../../src/index.ts";
import { checkTimeout, isTimeoutReason, MAX_WINDOW_MS, RequestDeadline, TimeoutClock } from "../../src/timeout.ts";
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
    const call = company.POST("/v1/cards", {
      body: { cardHolderId: "01JD8X5H3J7K9M1N3P5Q7R9S1T", name: "n", category: "Other", bin: "1" },
    });
    await expect(call).rejects.toBeInstanceOf(RequestTimeoutError);
    await expect(call).rejects.toThrow(
      "partner-api-client: POST /api/v1/cards got no response within 30 ms (timeoutMs)",
    );
    expect(sent).toHaveLength(1);
  });

  test("a fetch that rejects with a copy of the abort reason (as workerd's does) still gives a TimeoutError", async () => {
    const copying = (sent: Sent) =>
      hang(sent).catch((reason: DOMException) => Promise.reject(new DOMException(reason.message, reason.name)));
    const { company } = testClient(copying, { timeoutMs: 30, retry: false });
    await expect(company.GET("/v1/card-bins")).rejects.toBeInstanceOf(RequestTimeoutError);
    // The caller's own abort stays the caller's, copied or not.
    const caller = new AbortController();
    const aborted = testClient(copying, { timeoutMs: 30_000, retry: false }).company.GET("/v1/card-bins", {
      signal: caller.signal,
    });
    caller.abort();
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
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

  test("a bad timeout is refused, naming it", () => {
    expect(() => checkTimeout(-1)).toThrow(/timeoutMs must be a whole number from 1 to 2147483647, got number -1/);
    expect(checkTimeout(30)).toBe(30);
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

  test("nothing keeps a finished call alive: no timer holding the process open", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;
    const { company } = testClient(undefined, { timeoutMs: 60_000 });
    const before = timers();
    const held = setTimeout(() => undefined, 60_000);
    expect(timers()).toBe(before + 1); // the count sees a running timer
    clearTimeout(held);
    await company.GET("/v1/card-bins");
    await company.POST("/v1/cards/{cardId}/details", { params: { path: { cardId: "01JD8X9N4E2R6T8V0W2Y4Z6A8C" } } });
    expect(timers()).toBe(before);
  });
});

describe("shared timeout windows", () => {
  afterEach(() => vi.useRealTimers());
  const fake = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });

  test("requests starting within one window share its signal; each is aborted at most one window late", () => {
    fake();
    const clock = new TimeoutClock(1_000);
    expect(clock.windowMs).toBe(1_000 / 32);
    const first = new RequestDeadline(clock);
    vi.advanceTimersByTime(30);
    const second = new RequestDeadline(clock);
    expect(second.signal).toBe(first.signal);
    vi.advanceTimersByTime(2);
    const third = new RequestDeadline(clock); // 32 ms: the first window has closed
    expect(third.signal).not.toBe(first.signal);
    vi.advanceTimersByTime(1_000 - 32 - 1); // 999 ms after the first started
    expect(first.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1_000 / 32 + 1); // one window after the timeout
    expect(first.signal.aborted).toBe(true);
    expect(isTimeoutReason(first.signal.reason)).toBe(true);
    // The second started 30 ms later and was aborted 1001.25 ms after it started: late, but by under a window.
    expect(third.signal.aborted).toBe(false);
    vi.advanceTimersByTime(32);
    expect(third.signal.aborted).toBe(true);
    for (const deadline of [first, second, third]) deadline.end();
  });

  test("windows are bounded to MAX_WINDOW_MS and to 16 requests", () => {
    fake();
    expect(new TimeoutClock(30_000).windowMs).toBe(MAX_WINDOW_MS);
    const clock = new TimeoutClock(30_000);
    const deadlines = Array.from({ length: 17 }, () => new RequestDeadline(clock));
    expect(new Set(deadlines.slice(0, 16).map((d) => d.signal)).size).toBe(1);
    expect(deadlines[16]!.signal).not.toBe(deadlines[0]!.signal);
    for (const deadline of deadlines) deadline.end();
  });

  test("a closed window's timer is cleared when its last request ends; the open one's never holds the process", () => {
    fake();
    const clock = new TimeoutClock(30_000);
    const early = new RequestDeadline(clock);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(MAX_WINDOW_MS);
    const late = new RequestDeadline(clock); // opens a second window; the first still has a request
    expect(vi.getTimerCount()).toBe(2);
    early.end();
    expect(vi.getTimerCount()).toBe(1);
    late.end(); // the open window keeps its timer for the next request
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(MAX_WINDOW_MS);
    new RequestDeadline(clock).end(); // the idle window is replaced and its timer cleared
    expect(vi.getTimerCount()).toBe(1);
  });

  test("in Cloudflare Workers, where a timer dies with the request that set it, no two requests share a window", () => {
    vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" });
    try {
      const clock = new TimeoutClock(30_000);
      expect(clock.windowMs).toBe(0);
      const [first, second] = [new RequestDeadline(clock), new RequestDeadline(clock)];
      expect(second.signal).not.toBe(first.signal);
      first.end();
      second.end();
    } finally {
      vi.unstubAllGlobals();
    }
    expect(new TimeoutClock(30_000).windowMs).toBe(MAX_WINDOW_MS);
  });

  test("a caller's signal gets a follower of its own, let go of when the call ends", () => {
    const clock = new TimeoutClock(30_000);
    const caller = new AbortController();
    const deadline = new RequestDeadline(clock, caller.signal);
    const plain = new RequestDeadline(clock);
    expect(deadline.signal).not.toBe(plain.signal);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(1);
    deadline.end();
    plain.end();
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    const aborted = new RequestDeadline(clock, caller.signal);
    caller.abort();
    expect(aborted.signal.aborted).toBe(true);
    expect(isTimeoutReason(aborted.signal.reason)).toBe(false);
    aborted.end();
  });
});
