/** The clock through the control API: advance by seconds or to a time, freeze and resume, and its status. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { clientFor, request, seededCompany } from "./support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    seed: 61,
    startTime: "2032-01-01T00:00:00Z",
    frozen: true,
    cardIssuingSeconds: 30,
  });
});
afterAll(() => sandbox.stop());

const clock = async () => (await request(sandbox.url, "GET", "/_sandbox/clock")).body;
const post = (path: string, body?: unknown) =>
  request(sandbox.url, "POST", `/_sandbox/clock${path}`, body === undefined ? {} : { body });

describe("a frozen clock", () => {
  it("started frozen, it reads the start time however much real time passes", async () => {
    const first = await clock();
    expect(first).toMatchObject({ now: "2032-01-01T00:00:00.000Z", frozen: true, speed: 1, status: "ready" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await clock()).now).toBe(first.now);
  });

  it("status says what is pending, when it falls due, and ready once advance has run it", async () => {
    const client = clientFor(sandbox.url, "clock-status");
    const { companyId, cardHolderId } = await seededCompany(client);
    const before = await clock();
    await client.post("/v1/cards", { cardHolderId, name: "C", category: "Other", bin: "45671234" }, { companyId });
    const pending = await clock();
    expect(pending.pendingTasks).toBe(before.pendingTasks + 1);
    expect(pending.nextDueAt).toBe(new Date(Date.parse(pending.now) + 30_000).toISOString());
    expect(pending.status).toBe("ready");
    const advanced = await post("/advance", { seconds: 30 });
    expect(advanced.body).toMatchObject({ frozen: true, status: "ready", pendingTasks: before.pendingTasks });
    expect((await client.get("/v1/cards", { companyId })).body.cards[0].status).toBe("Active");
  });

  it("advances to a time exactly, never back, at most a year ahead", async () => {
    const { now } = await clock();
    const target = new Date(Date.parse(now) + 90 * 60_000).toISOString();
    expect((await post("/advance", { to: target })).body.now).toBe(target);
    const back = await post("/advance", { to: now });
    expect(back.status).toBe(422);
    expect(back.body.detail).toBe(`to ${now} is earlier than the clock's reading ${target}: the clock never goes back`);
    const far = new Date(Date.parse(target) + 366 * 86_400_000).toISOString();
    expect((await post("/advance", { to: far })).body.detail).toMatch(/more than a year ahead/);
    expect((await post("/advance", { to: target, seconds: 5 })).status).toBe(422);
    expect((await post("/advance", { to: "tomorrow" })).body.detail).toContain("date-time");
    expect((await post("/advance", {})).status).toBe(422);
  });

  it("resumes to follow real time from its reading, and freezes again where it is", async () => {
    const frozenAt = (await clock()).now;
    const resumed = await post("/resume");
    expect(resumed.body.frozen).toBe(false);
    expect(Date.parse(resumed.body.now)).toBeGreaterThanOrEqual(Date.parse(frozenAt));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const moving = await clock();
    expect(Date.parse(moving.now)).toBeGreaterThan(Date.parse(frozenAt));
    const refrozen = await post("/freeze");
    expect(refrozen.body.frozen).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await clock()).now).toBe(refrozen.body.now);
    expect((await post("/freeze")).body.now).toBe(refrozen.body.now);
  });

  it("runs work that falls due on its own once resumed", async () => {
    const fast = await startSandbox({ port: 0, frozen: true, speed: 1000, cardIssuingSeconds: 5 });
    try {
      const client = clientFor(fast.url, "resume-runs");
      const { companyId, cardHolderId } = await seededCompany(client);
      await client.post("/v1/cards", { cardHolderId, name: "C", category: "Other", bin: "45671234" }, { companyId });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await client.get("/v1/cards", { companyId })).body.cards[0].status).toBe("Creating");
      await client.post("/_sandbox/clock/resume");
      await expect
        .poll(async () => (await client.get("/v1/cards", { companyId })).body.cards[0].status, { timeout: 5_000 })
        .toBe("Active");
      await expect.poll(async () => (await client.get("/_sandbox/clock")).body.status).toBe("ready");
    } finally {
      await fast.stop();
    }
  });
});
