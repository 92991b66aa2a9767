/**
 * The dashboard page's logic that needs no browser: which view a hash opens, where an event's delivery stands,
 * which logged calls a filter keeps, the fault a form asks for, the words for faults, accounts and times
 * (format.js, which the CLI shares). The modules are the page's own files, imported as they are served.
 */
import { describe, expect, it } from "vitest";
import {
  accountName,
  describeFault,
  faultEffect,
  faultFromForm,
  faultReach,
  formatUtc,
  matches,
  outcomeOf,
  parseUtc,
  receiverOutcomes,
} from "../../devkit/src/dashboard/page/format.js";
import { viewOf } from "../../devkit/src/dashboard/page/routes.js";

describe("viewOf", () => {
  it("opens the view the page's hash names, the accounts for anything else", () => {
    expect(viewOf("")).toBe("accounts");
    expect(viewOf("#")).toBe("accounts");
    expect(viewOf("#/events")).toBe("events");
    expect(viewOf("#/requests")).toBe("requests");
    expect(viewOf("#/clock")).toBe("clock");
    expect(viewOf("#/nope")).toBe("accounts");
    expect(viewOf("#/constructor")).toBe("accounts");
  });
  it("keeps a place in the console's reference in the console, with or without the page's prefix", () => {
    expect(viewOf("#/console")).toBe("console");
    expect(viewOf("#/console/partner-api/tag/companies/POST/v1/companies")).toBe("console");
    expect(viewOf("#tag/cards")).toBe("console");
  });
});

const attempt = (endpointId: string, statusCode?: number) =>
  statusCode === undefined
    ? { endpointId, attempt: 1, at: "", error: "connect ECONNREFUSED" }
    : { endpointId, attempt: 1, at: "", statusCode };
const next = (endpointId: string) => ({ endpointId, attempt: 2, dueAt: "" });

describe("outcomeOf", () => {
  it("no receiver, first attempt due, delivered", () => {
    expect(outcomeOf({ deliveries: [], nextAttempts: [] })).toBe("unsent");
    expect(outcomeOf({ deliveries: [], nextAttempts: [next("a")] })).toBe("pending");
    expect(outcomeOf({ deliveries: [attempt("a", 200)], nextAttempts: [] })).toBe("delivered");
  });
  it("failing with a retry due, and failed for good; the latest attempt of each receiver counts", () => {
    expect(outcomeOf({ deliveries: [attempt("a", 500)], nextAttempts: [next("a")] })).toBe("retrying");
    expect(outcomeOf({ deliveries: [attempt("a")], nextAttempts: [] })).toBe("failed");
    expect(outcomeOf({ deliveries: [attempt("a", 500), attempt("a", 204)], nextAttempts: [] })).toBe("delivered");
    expect(outcomeOf({ deliveries: [attempt("a", 503), attempt("b")], nextAttempts: [] })).toBe("failed");
    // One receiver done, another's first try still due.
    expect(outcomeOf({ deliveries: [attempt("a", 200)], nextAttempts: [next("b")] })).toBe("pending");
  });
  it("delivered to one receiver and failed for good at another is partial, not failed", () => {
    expect(outcomeOf({ deliveries: [attempt("a", 200), attempt("b", 503)], nextAttempts: [] })).toBe("partial");
    expect(outcomeOf({ deliveries: [attempt("a", 200), attempt("b", 503)], nextAttempts: [next("b")] })).toBe(
      "retrying",
    );
  });
  it("receiverOutcomes: each receiver by URL, its latest result, its attempts, what is still due", () => {
    const urls = new Map([
      ["a", "http://127.0.0.1:4242/a"],
      ["b", "http://127.0.0.1:4242/b"],
    ]);
    const urlOf = (id: string) => urls.get(id) ?? `removed receiver ${id}`;
    expect(
      receiverOutcomes(
        { deliveries: [attempt("a", 500), attempt("b", 200), attempt("a", 502)], nextAttempts: [next("a"), next("c")] },
        urlOf,
      ),
    ).toEqual([
      { endpointId: "a", url: "http://127.0.0.1:4242/a", outcome: "retrying", statusCode: 502, attempts: 2 },
      { endpointId: "b", url: "http://127.0.0.1:4242/b", outcome: "delivered", statusCode: 200, attempts: 1 },
      { endpointId: "c", url: "removed receiver c", outcome: "pending", attempts: 0 },
    ]);
    expect(receiverOutcomes({ deliveries: [attempt("a")], nextAttempts: [] }, urlOf)[0]).toMatchObject({
      outcome: "failed",
      error: "connect ECONNREFUSED",
    });
  });
});

describe("times, accounts and faults in words", () => {
  it("formatUtc writes every time as 24-hour UTC; parseUtc reads that writing back", () => {
    expect(formatUtc("2026-11-23T21:05:09.123Z")).toBe("2026-11-23 21:05:09 UTC");
    expect(formatUtc(null)).toBe("–");
    expect(formatUtc("soon")).toBe("soon");
    expect(parseUtc("2026-11-23 21:05:09")).toBe("2026-11-23T21:05:09.000Z");
    expect(parseUtc("2026-11-23 21:05")).toBe("2026-11-23T21:05:00.000Z");
    expect(parseUtc(" 2026-11-23T21:05:09 UTC ")).toBe("2026-11-23T21:05:09.000Z");
    expect(parseUtc(formatUtc("2030-01-02T03:04:05Z"))).toBe("2030-01-02T03:04:05.000Z");
    for (const bad of ["11/23/2026, 9:05 PM", "2026-02-30 10:00", "2026-11-23 25:00", "", "2026-11-23"])
      expect(parseUtc(bad)).toBeUndefined();
  });
  it("accountName: the label its partner set, else the end of its key, never the fingerprint alone", () => {
    expect(accountName({ account: "acct_111111111111", label: "Checkout team", keyHint: "…f3a9" })).toBe(
      "Checkout team",
    );
    expect(accountName({ account: "acct_111111111111", label: null, keyHint: "…f3a9" })).toBe("key …f3a9");
  });
  it("faults: the target, the effect and the reach in the words the CLI prints", () => {
    expect(faultEffect({ status: 429, retryAfter: 60 })).toBe("status 429 (Retry-After 60)");
    expect(faultEffect({ delayMs: 100, drop: true })).toBe("drop the connection, 100 ms late");
    expect(faultEffect({ malformed: true })).toBe("malformed body");
    expect(faultReach({ remaining: 1, probability: 0.5 })).toBe("1 call(s) left, chance 0.5");
    expect(faultReach({})).toBe("");
    expect(
      describeFault({ id: "f1", scope: "account", method: "GET", path: "/v1/cards", drop: true, hits: 0 } as never),
    ).toBe("fault f1 (account): GET /v1/cards → drop the connection; 0 hit(s)");
  });
});

const call = (fields: Record<string, unknown>) =>
  ({
    id: 1,
    at: "",
    account: "acct_111111111111",
    api: "partner",
    operationId: "listCardBins",
    method: "GET",
    path: "/v1/card-bins",
    status: 200,
    durationMs: 1,
    request: { headers: {} },
    response: { headers: {} },
    fault: null,
    contract: { valid: true, issues: [] },
    ...fields,
  }) as Parameters<typeof matches>[0];
const none = { account: "", text: "", status: "", faulted: false, mismatched: false };

describe("matches (the request log's filters)", () => {
  it("keeps every call with no filter", () => {
    expect(matches(call({}), none)).toBe(true);
  });
  it("by account, operation or path text (any case), status class, dropped, faulted, contract mismatch", () => {
    expect(matches(call({}), { ...none, account: "acct_222222222222" })).toBe(false);
    expect(matches(call({}), { ...none, account: "acct_111111111111" })).toBe(true);
    expect(matches(call({}), { ...none, text: "CARDBINS" })).toBe(true);
    expect(matches(call({}), { ...none, text: "/v1/card-b" })).toBe(true);
    expect(matches(call({}), { ...none, text: "createCard" })).toBe(false);
    expect(matches(call({ status: 503 }), { ...none, status: "5xx" })).toBe(true);
    expect(matches(call({ status: 503 }), { ...none, status: "4xx" })).toBe(false);
    expect(matches(call({ status: null }), { ...none, status: "5xx" })).toBe(false);
    expect(matches(call({ status: null }), { ...none, status: "dropped" })).toBe(true);
    expect(matches(call({}), { ...none, status: "dropped" })).toBe(false);
    expect(matches(call({}), { ...none, faulted: true })).toBe(false);
    expect(matches(call({ fault: { id: "f" } }), { ...none, faulted: true })).toBe(true);
    expect(matches(call({}), { ...none, mismatched: true })).toBe(false);
    expect(matches(call({ contract: { valid: false, issues: [] } }), { ...none, mismatched: true })).toBe(true);
    expect(matches(call({ contract: null }), { ...none, mismatched: true })).toBe(false);
  });
});

const form = {
  operationId: "listCardBins",
  effect: "status",
  status: "503",
  retryAfter: "",
  delayMs: "",
  times: "1",
  probability: "",
};

describe("faultFromForm", () => {
  it("the smallest fault: an operation, a status, once", () => {
    expect(faultFromForm(form)).toEqual({ operationId: "listCardBins", status: 503, times: 1 });
  });
  it("each effect, with its optional fields", () => {
    expect(faultFromForm({ ...form, retryAfter: "30", times: "" })).toEqual({
      operationId: "listCardBins",
      status: 503,
      retryAfter: 30,
    });
    expect(faultFromForm({ ...form, effect: "delay", delayMs: "2500" })).toMatchObject({ delayMs: 2500 });
    expect(faultFromForm({ ...form, effect: "drop" })).toEqual({ operationId: "listCardBins", drop: true, times: 1 });
    expect(faultFromForm({ ...form, effect: "malformed", probability: "0.5" })).toEqual({
      operationId: "listCardBins",
      malformed: true,
      times: 1,
      probability: 0.5,
    });
  });
  it("names the field that is wrong", () => {
    expect(() => faultFromForm({ ...form, operationId: "" })).toThrow(/choose the operation/);
    expect(() => faultFromForm({ ...form, status: "5x" })).toThrow(/Status must be a whole number, got "5x"/);
    expect(() => faultFromForm({ ...form, effect: "delay" })).toThrow(/needs the delay/);
    expect(() => faultFromForm({ ...form, probability: "2" })).toThrow(/Probability must be above 0/);
    expect(() => faultFromForm({ ...form, times: "1.5" })).toThrow(/Times must be a whole number/);
  });
});
