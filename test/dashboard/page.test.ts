/**
 * The dashboard page's logic that needs no browser: which view a hash opens, where an event's delivery stands,
 * which logged calls a filter keeps, the fault a form asks for, the console's Scalar settings. The modules are
 * the page's own files, imported as they are served.
 */
import { describe, expect, it } from "vitest";
import { describeEffect, faultFromForm } from "../../devkit/src/dashboard/page/clock.js";
import { outcomeOf } from "../../devkit/src/dashboard/page/events.js";
import { matches } from "../../devkit/src/dashboard/page/requests.js";
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
    expect(outcomeOf({ deliveries: [attempt("a", 200), attempt("b", 503)], nextAttempts: [] })).toBe("failed");
    // One receiver done, another's first try still due.
    expect(outcomeOf({ deliveries: [attempt("a", 200)], nextAttempts: [next("b")] })).toBe("pending");
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
  it("describeEffect says what a registered fault does", () => {
    expect(describeEffect({ status: 429, retryAfter: 60 })).toBe("answers 429, Retry-After 60 s");
    expect(describeEffect({ delayMs: 100, drop: true })).toBe("100 ms late, drops the connection");
    expect(describeEffect({ malformed: true })).toBe("cuts the body short");
  });
});
