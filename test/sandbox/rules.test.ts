/**
 * The API's own rules, as the sandbox keeps them: routes and deposits only for a company cleared by
 * verification and terms (or with force); every ledger entry's transaction readable with getTransaction;
 * webhook endpoints get only the event types they subscribe to; the completion page after verification when
 * there is no redirectUri; ids are ULIDs in the order they were made, the clock's time in front.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { openDatabase } from "../../devkit/src/sandbox/store/sqlite-store.ts";
import { type Receiver, startReceiver } from "../../scripts/lib/receiver.ts";
import { approvedCompany, clientFor, ONBOARD_BODY, seededCompany } from "./support.ts";

let sandbox: Sandbox;
const receivers: Receiver[] = [];
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 71 });
});
afterEach(() => Promise.all(receivers.splice(0).map((receiver) => receiver.close())));
afterAll(() => sandbox.stop());

const advance = (seconds: number) => sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds } });

/** Crockford base32's value of a ULID's first 10 characters: the milliseconds it was made at. */
function ulidMs(id: string): number {
  return [...id.slice(0, 10)].reduce((ms, char) => ms * 32 + "0123456789ABCDEFGHJKMNPQRSTVWXYZ".indexOf(char), 0);
}

describe("routes and deposits need a cleared company", () => {
  it("names the missing steps, opens once both are done, and force opens anyway", async () => {
    const client = clientFor(sandbox.url, "rules-routes");
    const { companyId: seeded } = await seededCompany(client);
    const routes = (companyId: string, body: Record<string, unknown> = { type: "onramp" }) =>
      client.post(`/_sandbox/companies/${companyId}/payment-routes`, body);

    const noSwap = await routes(seeded);
    expect(noSwap.status).toBe(422);
    expect(noSwap.body.type).toMatch(/\/company-not-cleared$/);
    expect(noSwap.body.detail).toBe(
      `payment routes open only for a company whose verification is approved and whose terms are accepted; company ${seeded} was not onboarded with Swap, so it has no verification (onboard one with products ["Swap"]). Pass force: true to do it anyway`,
    );

    const swap = (await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] })).body.company.id;
    const both = await routes(swap);
    expect(both.body.detail).toContain(
      `company ${swap}: its verification is not_started, not approved (setCompanyKycStatus, or the hosted verification page); its terms are not accepted (setCompanyTermsAccepted, or the hosted terms page)`,
    );
    await client.post(`/_sandbox/companies/${swap}/kyc-status`, { kycStatus: "approved" });
    const terms = await routes(swap);
    expect(terms.status).toBe(422);
    expect(terms.body.detail).not.toContain("its verification is");
    expect(terms.body.detail).toContain("its terms are not accepted");
    await client.post(`/_sandbox/companies/${swap}/terms-acceptance`, { tosAccepted: true });
    const opened = await routes(swap);
    expect(opened.status).toBe(201);

    const forced = await routes(seeded, { type: "offramp", force: true });
    expect(forced.status).toBe(201);
    // Nothing was opened by the refused calls.
    const events = (await client.get("/_sandbox/events")).body.events.filter(
      (e: { type: string }) => e.type === "payment_route.created",
    );
    expect(events.map((e: { payload: { paymentRoute: { id: string } } }) => e.payload.paymentRoute.id)).toEqual([
      forced.body.paymentRoute.id,
      opened.body.paymentRoute.id,
    ]);
  });

  it("a deposit lands only while the company stays cleared, or with force", async () => {
    const client = clientFor(sandbox.url, "rules-deposits");
    const companyId = await approvedCompany(client);
    const routeId = (await client.post(`/_sandbox/companies/${companyId}/payment-routes`, { type: "onramp" })).body
      .paymentRoute.id;
    const deposit = (body: Record<string, unknown>) =>
      client.post(`/_sandbox/payment-routes/${routeId}/deposits`, body);
    expect((await deposit({ amount: 10 })).status).toBe(201);
    await client.post(`/_sandbox/companies/${companyId}/kyc-status`, { kycStatus: "paused" });
    const refused = await deposit({ amount: 20 });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatch(/^deposits land only for a company .*its verification is paused, not approved/);
    const forced = await deposit({ amount: 20, force: true });
    expect(forced.status).toBe(201);
    const landed = (await client.get("/_sandbox/events")).body.events.filter(
      (e: { type: string }) => e.type === "payment_route.transaction.created",
    );
    expect(landed).toHaveLength(2);
  });
});

describe("the ledger and getTransaction", () => {
  it("every ledger entry's transaction.id is a transaction getTransaction reads, seeded ones included", async () => {
    const client = clientFor(sandbox.url, "rules-ledger");
    const { companyId } = await seededCompany(client);
    for (const [type, direction] of [
      ["Card", "Debit"],
      ["PaymentAcceptance", "Credit"],
      ["Account", "Credit"],
    ])
      await client.post(`/_sandbox/companies/${companyId}/spending-account/entries`, { type, direction, amount: 12.3 });
    const { transactions: entries } = (
      await client.get("/v1/card-spending-account/transactions?limit=50", { companyId })
    ).body;
    expect(entries).toHaveLength(6);
    for (const entry of entries) {
      const read = await client.get(`/transactions/${entry.transaction.id}`);
      expect(read.status).toBe(200);
      const { transaction } = read.body;
      expect(transaction).toMatchObject({
        id: entry.transaction.id,
        type: entry.transaction.direction,
        amount: Number(entry.transaction.amount),
        currency: entry.transaction.currency,
        description: entry.transaction.description,
        counterpartyName: entry.transaction.counterpartyName,
        status: entry.type === "Card" ? "SETTLED" : "PAID",
        paymentMethod: entry.type === "PaymentAcceptance" ? "card" : null,
      });
      expect(Date.parse(transaction.createdAt)).toBe(Date.parse(entry.transaction.createdAt));
      if (entry.type === "PaymentAcceptance")
        expect(transaction.card).toMatchObject({ last4: expect.stringMatching(/^\d{4}$/) });
      else expect(transaction).not.toHaveProperty("card");
    }
    // Another account's ledger transaction is not this one's.
    expect(
      (await clientFor(sandbox.url, "rules-ledger-other").get(`/transactions/${entries[0].transaction.id}`)).status,
    ).toBe(403);
  });
});

describe("webhook subscriptions", () => {
  it("an endpoint gets only the event types it subscribes to; every type by default; an update takes effect", async () => {
    const all = await startReceiver([200]);
    const kycOnly = await startReceiver([200]);
    receivers.push(all, kycOnly);
    const client = clientFor(sandbox.url, "rules-hooks");
    const everything = await client.post("/_sandbox/webhook-endpoints", { url: all.url, secret: "s" });
    expect(everything.body.events).toHaveLength(6);
    const subscribed = await client.post("/_sandbox/webhook-endpoints", {
      url: kycOnly.url,
      secret: "s",
      events: ["company.kyc_status_changed"],
    });
    expect(subscribed.body.events).toEqual(["company.kyc_status_changed"]);
    const companyId = (await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] })).body.company.id;
    await client.post(`/_sandbox/companies/${companyId}/kyc-status`, { kycStatus: "under_review" });
    await advance(0);
    // Deliveries run up to 4 at once to a receiver, so they may arrive in any order (the picks' "Order and
    // duplicates"): compared as sorted lists.
    const types = (receiver: Receiver, from = 0) =>
      receiver.deliveries
        .slice(from)
        .map((d) => JSON.parse(d.body).type as string)
        .sort();
    expect(types(all)).toEqual(["company.kyc_link.issued", "company.kyc_status_changed"]);
    expect(types(kycOnly)).toEqual(["company.kyc_status_changed"]);

    const updated = await client.patch(`/_sandbox/webhook-endpoints/${subscribed.body.id}`, {
      events: ["company.onboarding_status_changed"],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: subscribed.body.id,
      url: kycOnly.url,
      events: ["company.onboarding_status_changed"],
    });
    await client.post(`/_sandbox/companies/${companyId}/kyc-status`, { kycStatus: "approved" });
    await client.post(`/_sandbox/companies/${companyId}/onboarding-status`, { status: "Active" });
    // A resend goes to the endpoints subscribed to the event's type only.
    const link = (await client.get("/_sandbox/events")).body.events.find(
      (e: { type: string }) => e.type === "company.kyc_link.issued",
    );
    await client.post(`/_sandbox/events/${link.id}/resend`);
    await advance(0);
    expect(types(kycOnly)).toEqual(["company.kyc_status_changed", "company.onboarding_status_changed"]);
    expect(types(all, 2)).toEqual([
      "company.kyc_link.issued",
      "company.kyc_status_changed",
      "company.onboarding_status_changed",
    ]);
    expect(
      (await client.get("/_sandbox/webhook-endpoints")).body.webhookEndpoints.map(
        (e: { events: string[] }) => e.events.length,
      ),
    ).toEqual([6, 1]);
  });

  it("an endpoint from a state file written before subscriptions receives every type, as it did", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "sandbox-subscriptions-"));
    const state = path.join(folder, "state.db");
    const hook = await startReceiver([200]);
    receivers.push(hook);
    try {
      const first = await startSandbox({ port: 0, state });
      await clientFor(first.url, "old-endpoint").post("/_sandbox/webhook-endpoints", { url: hook.url, secret: "s" });
      await first.stop();
      // The endpoint as a state file of before subscriptions held it: no `events`.
      const db = openDatabase(state);
      expect(db.prepare("UPDATE endpoints SET record = json_remove(record, '$.endpoint.events')").run().changes).toBe(
        1,
      );
      db.close();
      const second = await startSandbox({ port: 0, state });
      try {
        const client = clientFor(second.url, "old-endpoint");
        const listed = (await client.get("/_sandbox/webhook-endpoints")).body.webhookEndpoints;
        expect(listed[0].events).toHaveLength(6);
        await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
        await second.control.POST("/_sandbox/clock/advance", { body: { seconds: 0 } });
        expect(hook.deliveries.map((d) => JSON.parse(d.body).type)).toEqual(["company.kyc_link.issued"]);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("refuses an unknown event type, an empty list, an empty update and an unknown endpoint", async () => {
    const client = clientFor(sandbox.url, "rules-hooks-bad");
    const body = { url: "http://127.0.0.1:9/", secret: "s" };
    expect((await client.post("/_sandbox/webhook-endpoints", { ...body, events: ["card.created"] })).status).toBe(422);
    expect((await client.post("/_sandbox/webhook-endpoints", { ...body, events: [] })).status).toBe(422);
    const id = (await client.post("/_sandbox/webhook-endpoints", body)).body.id;
    expect((await client.patch(`/_sandbox/webhook-endpoints/${id}`, {})).status).toBe(422);
    expect(
      (
        await client.patch("/_sandbox/webhook-endpoints/01JD8X4M6Q2V7R9T3W5Y0Z1A2B", {
          events: ["payment_route.created"],
        })
      ).status,
    ).toBe(404);
  });

  it("a retry already scheduled stops when the endpoint no longer subscribes to its type", async () => {
    const failing = await startReceiver([500]);
    receivers.push(failing);
    const client = clientFor(sandbox.url, "rules-hooks-retry");
    const endpoint = await client.post("/_sandbox/webhook-endpoints", { url: failing.url, secret: "s" });
    await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    await advance(0);
    expect(failing.deliveries).toHaveLength(1);
    await client.patch(`/_sandbox/webhook-endpoints/${endpoint.body.id}`, { events: ["payment_route.created"] });
    await advance(600);
    expect(failing.deliveries).toHaveLength(1);
  });
});

describe("the completion page", () => {
  const post = (url: string, form: string) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });

  it("without redirectUri, verification ends on the sandbox's completion page", async () => {
    const client = clientFor(sandbox.url, "rules-complete");
    const { id, swap } = (await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] })).body.company;
    const completion = `${sandbox.url}/_sandbox/hosted/complete/${id}`;
    const before = await (await fetch(completion)).text();
    expect(before).toContain("Verification is not complete yet (status not_started).");
    expect(await (await post(swap.kycUrl, "action=submit")).text()).not.toContain('id="continue"');
    const approved = await (await post(swap.kycUrl, "action=complete")).text();
    expect(approved).toContain(`<a id="continue" href="${completion}">Continue</a>`);
    const page = await fetch(completion);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("Verification is complete. You can close this page.");
    expect((await fetch(`${sandbox.url}/_sandbox/hosted/complete/01JD8X4M6Q2V7R9T3W5Y0Z1A2B`)).status).toBe(404);
  });

  it("with redirectUri, the verification page continues there instead", async () => {
    const client = clientFor(sandbox.url, "rules-redirect");
    const { swap } = (
      await client.post("/v1/companies", {
        ...ONBOARD_BODY,
        products: ["Swap"],
        redirectUri: "https://partner.example/done",
      })
    ).body.company;
    const html = await (await post(swap.kycUrl, "action=complete")).text();
    expect(html).toContain('<a id="continue" href="https://partner.example/done">Continue</a>');
  });
});

describe("ids", () => {
  it("are ULIDs in the order they were made, the clock's time in their first 10 characters", async () => {
    const client = clientFor(sandbox.url, "rules-ids");
    const { companyId, cardHolderId } = await seededCompany(client);
    const made: { id: string; at: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const company = (await client.post("/v1/companies", ONBOARD_BODY)).body.company;
      made.push({ id: company.id, at: company.createdAt });
      const card = await client.post(
        "/v1/cards",
        { cardHolderId, name: `C${i}`, category: "Other", bin: "45671234" },
        { companyId },
      );
      const listed = (await client.get("/v1/cards", { companyId })).body.cards.at(-1);
      expect(listed.id).toBe(card.body.card.id);
      made.push({ id: listed.id, at: listed.createdAt });
      await advance(90);
    }
    const ids = made.map((m) => m.id);
    expect([...ids].sort()).toEqual(ids);
    for (const { id, at } of made) expect(ulidMs(id)).toBe(Date.parse(at));
    // Seeded data is dated 2026-01-01, and so are its ids.
    // (The seeded company's id is the contract example's; its card holder's is drawn.)
    const seeded = (await client.get("/v1/companies")).body.companies[0];
    expect(seeded.id).toBe(companyId);
    expect(ulidMs(cardHolderId)).toBe(Date.parse(seeded.createdAt));
    expect(cardHolderId < ids[0]!).toBe(true);
  });

  it("made in one millisecond (a frozen clock), still sort in the order they were made", async () => {
    const frozen = await startSandbox({ port: 0, seed: 72, frozen: true, startTime: "2030-01-01T00:00:00Z" });
    try {
      const client = clientFor(frozen.url, "rules-ids-frozen");
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await client.post("/v1/companies", ONBOARD_BODY)).body.company.id);
      expect(new Set(ids.map((id) => id.slice(0, 10)))).toEqual(new Set([ids[0]!.slice(0, 10)]));
      expect(ulidMs(ids[0]!)).toBe(Date.parse("2030-01-01T00:00:00Z"));
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(20);
      const events = (await client.get("/_sandbox/events")).body.events.map((e: { id: string }) => e.id);
      expect(events.every((id: string) => /^evt_[0-7][0-9A-HJKMNP-TV-Z]{25}$/.test(id))).toBe(true);
    } finally {
      await frozen.stop();
    }
  });
});
