/** The clock through the control API: advance by seconds or to a time, freeze and resume, and its status. */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLOCK_RANGE, SandboxClock } from "../../devkit/src/sandbox/clock.ts";
import { type Sandbox, SandboxStateError, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { clientFor, emptyStateFile, request, seededCard, seededCompany } from "./support.ts";

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
    expect((await post("/advance", { to: "tomorrow" })).body.detail).toContain(
      'body/to got "tomorrow"; allowed: a date and time as RFC 3339',
    );
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
      const card = async () =>
        (await client.get("/v1/cards", { companyId })).body.cards.find((c: { name: string }) => c.name === "C");
      expect((await card()).status).toBe("Creating");
      await client.post("/_sandbox/clock/resume");
      await expect.poll(async () => (await card()).status, { timeout: 5_000 }).toBe("Active");
      await expect.poll(async () => (await client.get("/_sandbox/clock")).body.status).toBe("ready");
    } finally {
      await fast.stop();
    }
  });
});

describe("the clock's range: 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z", () => {
  const END = "9999-12-31T23:59:59.999Z";
  const RANGE = "from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z";

  it("an advance past its end is a 422 naming the range, and the clock stays; up to the end is taken", async () => {
    const late = await startSandbox({ port: 0, frozen: true, startTime: "9999-12-31T00:00:00Z" });
    try {
      const client = clientFor(late.url, "late");
      const past = await client.post("/_sandbox/clock/advance", { seconds: 86_400 });
      expect(past.status).toBe(422);
      expect(past.body.detail).toBe(
        `the clock would read +010000-01-01T00:00:00.000Z, outside the sandbox clock's range (${RANGE})`,
      );
      expect((await client.get("/_sandbox/clock")).body.now).toBe("9999-12-31T00:00:00.000Z");
      const toEnd = await client.post("/_sandbox/clock/advance", { to: END });
      expect(toEnd.status).toBe(200);
      expect(toEnd.body.now).toBe(END);
      const more = await client.post("/_sandbox/clock/advance", { seconds: 0.001 });
      expect(more.status).toBe(422);
      expect(more.body.detail).toContain(RANGE);
      // At its end, everything that reads the clock still answers.
      // (seededCard expects its 201.)
      await seededCard(client);
      expect((await client.get("/_sandbox/clock")).status).toBe(200);
      expect((await client.get("/_sandbox/events")).status).toBe(200);
      expect((await client.post("/_sandbox/reset")).status).toBe(204);
      expect((await client.get("/v1/companies")).status).toBe(200);
    } finally {
      await late.stop();
    }
  });

  it("a clock running fast stops at the end of its range", () => {
    let real = 0;
    const fast = new SandboxClock(CLOCK_RANGE.max - 1_000, 1e9, () => real);
    real = 1_000_000;
    expect(fast.now()).toBe(CLOCK_RANGE.max);
    expect(fast.iso()).toBe(END);
    fast.advance(1e20);
    fast.freeze();
    expect(fast.iso()).toBe(END);
  });

  it("a clock frozen at start reads its start time, however long after it was made", () => {
    let real = 0;
    const clock = new SandboxClock(Date.UTC(2030, 5, 1), 1, () => real);
    real = 3.5;
    clock.freezeAtStart();
    real = 1_000;
    expect(clock.iso()).toBe("2030-06-01T00:00:00.000Z");
  });

  it("a startTime outside it is refused, naming the option and the range", async () => {
    for (const startTime of ["1969-12-31T23:59:59Z", "+010000-01-01T00:00:00Z", new Date(8.64e15)])
      await expect(startSandbox({ port: 0, startTime })).rejects.toThrow(
        `startSandbox: startTime must be ${RANGE} (the sandbox clock's range)`,
      );
  });

  it("a state file whose clock is outside it is refused at start, named, and left untouched", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "sandbox-clock-"));
    try {
      const file = path.join(folder, "state.json");
      const text = JSON.stringify(emptyStateFile(1, "+275760-09-13T00:00:00.000Z"));
      await writeFile(file, text);
      const start = startSandbox({ port: 0, state: file });
      await expect(start).rejects.toThrow(SandboxStateError);
      await expect(start).rejects.toThrow(
        /sandbox state file .*state\.json is corrupt \(its clock \+275760-09-13T00:00:00\.000Z is outside the sandbox clock's range/,
      );
      expect(await readFile(file, "utf8")).toBe(text);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
