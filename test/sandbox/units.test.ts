/** The sandbox's building blocks on their own: clock, seeded random, due tasks, engine, state store, contract router. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxClock } from "../../devkit/src/sandbox/clock.ts";
import { heapify, PendingTasks, popTask, pushTask } from "../../devkit/src/sandbox/due.ts";
import { SandboxEngine } from "../../devkit/src/sandbox/engine.ts";
import { operationsWithoutHandler } from "../../devkit/src/sandbox/example-answers.ts";
import {
  CONTROL_HANDLERS,
  engineParts,
  FLOWS,
  PARTNER_HANDLERS,
  TASK_RUNNERS,
  type Task,
} from "../../devkit/src/sandbox/flows/index.ts";
import { sandboxRouter } from "../../devkit/src/sandbox/index.ts";
import { longStrings } from "../../devkit/src/sandbox/limits.ts";
import {
  type RandomHolder,
  randomPartPlus,
  randomStateFor,
  SeededRandom,
  ulidTime,
} from "../../devkit/src/sandbox/random.ts";
import { FORMAT_4 } from "../../devkit/src/sandbox/store/format4.ts";
import { readStateFile } from "../../devkit/src/sandbox/store/sqlite-store.ts";
import { MemoryStore } from "../../devkit/src/sandbox/store/tables.ts";
import { memoryEngine } from "./support.ts";

describe("SandboxClock", () => {
  it("follows real time times the speed, plus what was advanced; never goes back", () => {
    let real = 1_000;
    const clock = new SandboxClock(Date.parse("2030-01-01T00:00:00Z"), 60, () => real);
    expect(clock.iso()).toBe("2030-01-01T00:00:00.000Z");
    real += 1_000;
    expect(clock.iso()).toBe("2030-01-01T00:01:00.000Z");
    clock.advance(30_000);
    expect(clock.iso()).toBe("2030-01-01T00:01:30.000Z");
    clock.advanceTo(Date.parse("2030-01-01T00:00:00Z"));
    clock.advance(-5_000);
    expect(clock.iso()).toBe("2030-01-01T00:01:30.000Z");
    expect(clock.realDelayUntil(clock.now() + 60_000)).toBe(1_000);
    expect(clock.realDelayUntil(clock.now() - 1)).toBe(0);
  });

  it("frozen, stays at its reading while real time passes, still advances, and resumes from where it was", () => {
    let real = 0;
    const clock = new SandboxClock(Date.parse("2030-01-01T00:00:00Z"), 10, () => real);
    real += 1_000;
    clock.freeze();
    expect(clock.frozen).toBe(true);
    real += 60_000;
    expect(clock.iso()).toBe("2030-01-01T00:00:10.000Z");
    expect(clock.realDelayUntil(clock.now() + 1)).toBe(Number.POSITIVE_INFINITY);
    expect(clock.realDelayUntil(clock.now())).toBe(0);
    clock.advance(5_000);
    clock.freeze();
    expect(clock.iso()).toBe("2030-01-01T00:00:15.000Z");
    clock.resume();
    expect(clock.frozen).toBe(false);
    expect(clock.iso()).toBe("2030-01-01T00:00:15.000Z");
    real += 100;
    expect(clock.iso()).toBe("2030-01-01T00:00:16.000Z");
    clock.resume();
    expect(clock.iso()).toBe("2030-01-01T00:00:16.000Z");
  });
});

describe("SeededRandom", () => {
  it("gives the same draws for the same seed and name, other draws for another, and ULID-shaped ids", () => {
    const draw = (seed: number, name: string) => {
      const holder = { random: randomStateFor(seed, name) };
      const random = new SeededRandom(holder);
      return [
        random.ulid(),
        random.digits(4),
        random.hex(8),
        random.base58(6),
        random.token(10),
        random.pick(["a", "b", "c"]),
      ];
    };
    expect(draw(1, "k")).toEqual(draw(1, "k"));
    expect(draw(1, "k")).not.toEqual(draw(2, "k"));
    expect(draw(1, "k")).not.toEqual(draw(1, "j"));
    const random = new SeededRandom({ random: randomStateFor(3, "ids") });
    const ids = Array.from({ length: 1000 }, () => random.ulid());
    expect(ids.every((id) => /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(1000);
    const below = Array.from({ length: 1000 }, () => random.below(3));
    expect(new Set(below)).toEqual(new Set([0, 1, 2]));
  });
});

describe("ULIDs", () => {
  it("carry the time in their first 10 characters (the ULID spec's own example), 48 bits at most", () => {
    expect(ulidTime(0)).toBe("0000000000");
    expect(ulidTime(1469918176385)).toBe("01ARYZ6S41");
    expect(ulidTime(2 ** 48 - 1)).toBe("7ZZZZZZZZZ");
    expect(() => ulidTime(2 ** 48)).toThrow(RangeError);
    expect(() => ulidTime(-1)).toThrow(RangeError);
  });

  it("sort in the order they were made: across milliseconds, within one, and if time went back", () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const holder: RandomHolder = { random: randomStateFor(4, "ulids") };
    const random = new SeededRandom(holder, () => now);
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      ids.push(random.ulid());
      if (i % 10 === 9) now += 1;
      if (i === 30) now -= 5;
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(50);
    expect(ids[0]!.slice(0, 10)).toBe(ulidTime(Date.parse("2030-01-01T00:00:00Z")));
    expect(holder.lastId).toBe(ids.at(-1));
    // The same seed and the same times: the same ids.
    now = Date.parse("2030-01-01T00:00:00Z");
    const again = new SeededRandom({ random: randomStateFor(4, "ulids") }, () => now);
    expect(again.ulid()).toBe(ids[0]);
  });

  it("the random part of one made in the same millisecond is the last one's plus a step, exactly (as BigInt adds)", () => {
    const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    const value = (part: string) => [...part].reduce((sum, char) => sum * 32n + BigInt(crockford.indexOf(char)), 0n);
    const random = new SeededRandom({ random: randomStateFor(9, "parts") });
    for (let i = 0; i < 500; i++) {
      const part = i === 0 ? "ZZZZZZZZZZZZZZZY" : random.chars(crockford, 16);
      const step = random.next() + 1;
      const sum = randomPartPlus(part, step);
      if (value(part) + BigInt(step) >= 1n << 80n) expect(sum).toBeUndefined();
      else expect(value(sum!)).toBe(value(part) + BigInt(step));
    }
    expect(randomPartPlus("0000000000000000", 33)).toBe("0000000000000011");
    expect(randomPartPlus("ZZZZZZZZZZZZZZZZ", 1)).toBeUndefined();
  });
});

describe("longStrings", () => {
  it("names every string and property name over the limit by its path, in order, and nothing else", () => {
    const body = JSON.parse(
      '{"a":"xxxxxx","b":[{"c":"ok"},{"d":"yyyyyyy"}],"eeeeeeeee":1,"f":{"g":["zzzzzz","no"]},"h":null,"i":7}',
    );
    const issues = longStrings(body, 5);
    expect(issues.map((issue) => issue.location)).toEqual([
      ["body", "a"],
      ["body", "b", "1", "d"],
      ["body"],
      ["body", "f", "g", "0"],
    ]);
    expect(issues[1]!.message).toBe(
      "body/b/1/d is 7 characters long; the sandbox takes at most 5 characters in a string",
    );
    expect(issues[2]!.message).toContain("body has a property name 9 characters long");
    expect(longStrings(body, 9)).toEqual([]);
    expect(longStrings("abc", 2, ["query", "q"])).toEqual([
      {
        location: ["query", "q"],
        message: "query/q is 3 characters long; the sandbox takes at most 2 characters in a string",
      },
    ]);
  });
});

describe("due tasks", () => {
  const task = (id: number, dueAt: number): Task => ({
    id,
    dueAt,
    apiKey: "k",
    kind: "finishKybReview",
    companyId: "c",
  });
  const order = (tasks: Task[]) => [...tasks].sort((a, b) => a.dueAt - b.dueAt || a.id - b.id).map((t) => t.id);
  const drain = (heap: Task[]) => Array.from({ length: heap.length }, () => popTask(heap)!.id);

  it("come out by due time, then in the order they were scheduled, whether pushed or read back in any order", () => {
    const random = new SeededRandom({ random: randomStateFor(7, "due") });
    const tasks = Array.from({ length: 2_000 }, (_, id) => task(id, random.below(50)));
    const heap: Task[] = [];
    for (const each of tasks) pushTask(heap, each);
    expect(drain(heap)).toEqual(order(tasks));
    expect(drain(heapify([...tasks].reverse()))).toEqual(order(tasks));
    expect(popTask([])).toBeUndefined();
  });

  it("PendingTasks: a cancelled task is skipped at the top, left out of all(), and dropped at once past half", () => {
    const live = new Set<number>();
    const pending = new PendingTasks<Task>({ live: (each) => live.has(each.id) });
    const tasks = Array.from({ length: 200 }, (_, id) => task(id, 200 - id));
    pending.replace(tasks.slice(0, 100));
    for (const each of tasks.slice(100)) pending.push(each);
    for (const each of tasks) live.add(each.id);
    expect(pending.top()?.id).toBe(199);
    // The earliest ten cancelled: the top skips them; all() leaves them out.
    for (let id = 190; id < 200; id++) live.delete(id);
    pending.cancelled(10);
    expect(pending.top()?.id).toBe(189);
    expect(pending.has(tasks[199]!)).toBe(false);
    // Past half of the heap cancelled (and over 64), the heap keeps only the live ones.
    for (let id = 0; id < 120; id++) live.delete(id);
    pending.cancelled(120);
    expect(
      pending
        .all()
        .map((each) => each.id)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 70 }, (_, index) => 120 + index));
    expect(pending.has(tasks[0]!)).toBe(false);
    expect(pending.pop()?.id).toBe(189);
  });
});

const settings = { cardIssuingSeconds: 10, kybReviewSeconds: 60, baseUrl: () => "http://sandbox.invalid" };

describe("SandboxEngine: clock readings and records", () => {
  it("holds one clock reading for a call: an id and the createdAt beside it name the same millisecond", () => {
    const start = Date.parse("2030-01-01T00:00:00Z");
    // A running clock whose every reading is 0.6 ms after the one before: two reads cross a millisecond often.
    let real = 0;
    const clock = new SandboxClock(start, 1, () => (real += 0.6));
    const engine = new SandboxEngine<Task>(new MemoryStore(1), clock, settings, engineParts);
    engine.account("k");
    const make = () => ({ id: engine.random("k").ulid(), at: engine.now() });
    const held = Array.from({ length: 50 }, () => engine.hold(make));
    for (const { id, at } of held) expect(id.slice(0, 10)).toBe(ulidTime(Date.parse(at)));
    // Without the hold the two readings drift apart: the test above can fail.
    const loose = Array.from({ length: 50 }, make);
    expect(loose.some(({ id, at }) => id.slice(0, 10) !== ulidTime(Date.parse(at)))).toBe(true);
  });

  it("dates each record with the reading it is made at: held, dated (seeded data) or the clock's own, never an earlier one's", () => {
    let real = 0;
    const start = Date.parse("2030-01-01T00:00:00Z");
    const clock = new SandboxClock(start, 1, () => real);
    const engine = new SandboxEngine<Task>(new MemoryStore(1), clock, settings, engineParts);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(engine.now()).toBe(iso(start));
    real += 1.5;
    expect(engine.now()).toBe(iso(start + 1));
    expect(engine.dated(Date.UTC(2029, 5, 1), () => engine.now())).toBe(iso(Date.UTC(2029, 5, 1)));
    // After the dated job, the clock's reading again, not the dated one formatted last.
    expect(engine.now()).toBe(iso(start + 1));
    const heldAt = engine.hold(() => {
      real += 5;
      return engine.now();
    });
    expect(heldAt).toBe(iso(start + 1));
    expect(engine.now()).toBe(iso(start + 6));
  });
});

describe("SandboxEngine: wallets, generators and due tasks", () => {
  it("gives each new wallet no address of another: opening one on a wallet leaves the others' empty", async () => {
    const engine = memoryEngine();
    const handle = (operation: string, params: object, body: unknown) =>
      engine.hold(() =>
        (PARTNER_HANDLERS as unknown as Record<string, (call: unknown) => { status: number; body: never }>)[operation]!(
          { env: engine, params, body, apiKey: "k" },
        ),
      );
    const companies = [1, 2].map(
      () =>
        (handle("onboardCompany", {}, { name: "Acme", countryCode: "US" }).body as { company: { id: string } }).company
          .id,
    );
    const wallets = companies.map((id) => engine.store.list("wallets", "k", id)[0]!);
    expect(wallets[0]!.addresses).toEqual({});
    const opened = handle("openWalletAddress", { "X-Company-Id": companies[0], walletId: wallets[0]!.id }, {});
    expect(opened.status).toBe(201);
    expect(Object.keys(engine.store.get("wallets", "k", wallets[0]!.id)!.addresses)).toHaveLength(1);
    expect(engine.store.get("wallets", "k", wallets[1]!.id)!.addresses).toEqual({});
    // A record's parts are frozen: a change in place is a TypeError, never a change the store misses.
    expect(() => (wallets[1]!.wallet.chains as string[]).push("ETH")).toThrow(TypeError);
  });

  it("keeps an account's generator with the account: every draw is put, and two generators of it never repeat an id", () => {
    const store = new MemoryStore(1);
    const engine = new SandboxEngine<Task>(store, new SandboxClock(0, 1, () => 0), settings, engineParts);
    engine.account("k");
    const first = engine.random("k");
    const second = engine.random("k");
    const ids = [first.ulid(), second.ulid(), first.ulid(), second.ulid()];
    expect(new Set(ids).size).toBe(4);
    expect(store.get("accounts", "k", "k")?.lastId).toBe(ids[3]);
    // A new engine on the same records carries on where the last draw left the account.
    const again = new SandboxEngine<Task>(store, new SandboxClock(0, 1, () => 0), settings, engineParts);
    expect(ids).not.toContain(again.random("k").ulid());
  });

  it("runs thousands of due tasks, read back in any order, one at a time in due order on advance", async () => {
    const start = Date.parse("2030-01-01T00:00:00Z");
    const store = new MemoryStore(1);
    const clock = new SandboxClock(start, 1, () => 0);
    const engine = new SandboxEngine<Task>(store, clock, settings, engineParts);
    engine.account("k");
    const [company] = store.list("companies", "k");
    const [holder] = store.list("cardHolders", "k", company!.id);
    const count = 3_000;
    for (let i = 0; i < count; i++) {
      const id = `card-${i}`;
      store.put("cards", {
        id,
        account: "k",
        companyId: company!.id,
        card: { id, status: "Creating", name: id, last4: "0000", type: "company", brand: "Visa", createdAt: "" },
        cardHolderId: holder!.id,
        bin: "45671234",
        category: "TravelExpenses",
        frozen: false,
      });
      engine.schedule({
        kind: "activateCard",
        apiKey: "k",
        dueAt: start + 1_000 + (i % 5) * 100,
        companyId: company!.id,
        cardId: id,
      });
    }
    // A submitted profile, whose review ends APPROVED (a change, so announced).
    store.put("companies", { ...company!, kybStatus: "SUBMITTED" });
    engine.schedule({ kind: "finishKybReview", apiKey: "k", dueAt: start + 1_000, companyId: company!.id });
    await engine.stop();
    // Records read back from a file: the tasks in whatever order the file holds them.
    const tasks = [...store.all("tasks")].reverse();
    for (const task of tasks) store.delete("tasks", task.account, task.id);
    for (const task of tasks) store.put("tasks", task);
    const reloaded = new SandboxEngine<Task>(store, clock, settings, engineParts);
    expect(store.get("cards", "k", "card-1234")?.card.status).toBe("Creating");
    const active = () =>
      store.list("cards", "k", company!.id).filter((c) => c.id.startsWith("card-") && c.card.status === "Active");
    await reloaded.advance(500);
    expect(active()).toHaveLength(0);
    await reloaded.advance(1_000);
    expect(active()).toHaveLength(count);
    expect(store.size("tasks")).toBe(0);
    const [review] = store.list("events", "k").filter((e) => e.envelope.type === "company.kyb_status_changed");
    expect(review?.envelope.createdAt).toBe("2030-01-01T00:00:01.000Z");
    await reloaded.stop();
  });
});

describe("state store", () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "sandbox-store-"));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it("the memory store writes nothing", async () => {
    const store = new MemoryStore(1);
    await expect(store.commit()).resolves.toBeUndefined();
    await expect(store.flush()).resolves.toBeUndefined();
    await expect(store.close()).resolves.toBeUndefined();
  });

  it("readStateFile: undefined without a file; refuses bad ones naming them", async () => {
    expect(readStateFile(path.join(folder, "none.json"), "none.json")).toBeUndefined();
    const bad = path.join(folder, "bad.json");
    await writeFile(bad, JSON.stringify({ format: FORMAT_4, version: 4 }));
    expect(() => readStateFile(bad, "bad.json")).toThrow(/bad\.json is corrupt/);
    const other = path.join(folder, "other.txt");
    await writeFile(other, "hello");
    expect(() => readStateFile(other, "other.txt")).toThrow(/other\.txt is not a sandbox state file/);
  });
});

describe("the flows", () => {
  it("answer every operation of both contracts, each from exactly one flow, and nothing else", () => {
    // The sandbox answers an operation without a handler from the contract's examples (example-answers.ts); this
    // list is where a new operation shows up until a flow handles it.
    const missing = operationsWithoutHandler(sandboxRouter().operations, {
      partner: PARTNER_HANDLERS,
      control: CONTROL_HANDLERS,
    }).map((operation) => `${operation.api} ${operation.operationId} (${operation.method} ${operation.path})`);
    expect(missing, "operations without a handler: add one to a flow in devkit/src/sandbox/flows/").toEqual([]);
    for (const [api, handlers] of [
      ["partner", PARTNER_HANDLERS],
      ["control", CONTROL_HANDLERS],
    ] as const) {
      const served = sandboxRouter()
        .operations.filter((operation) => operation.api === api)
        .map((operation) => operation.operationId)
        .sort();
      expect(Object.keys(handlers).sort()).toEqual(served);
      // An operation two flows answered would be listed twice here.
      expect(FLOWS.flatMap((flow) => Object.keys(flow[api])).sort()).toEqual(served);
    }
  });

  it("register a runner for each task kind, from the flow that schedules it", () => {
    const kinds = FLOWS.flatMap((flow) => Object.keys(flow.tasks));
    expect(kinds.sort()).toEqual(["activateCard", "deliverEvent", "finishKybReview"]);
    expect(Object.keys(TASK_RUNNERS).sort()).toEqual(kinds);
  });
});

describe("the contract router", () => {
  const router = sandboxRouter();

  it("has an operation for every path and method of both contracts", () => {
    const ids = router.operations.map((operation) => operation.operationId);
    expect(ids).toEqual(expect.arrayContaining(["listCompanies", "createCard", "advanceClock", "getKycPage"]));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("matches templated paths, tells an unknown path from an unknown method", () => {
    const match = router.match("PATCH", "/v1/cards/ABC/unfreeze");
    expect(match).toMatchObject({
      kind: "operation",
      operation: { operationId: "unfreezeCard" },
      pathParams: { cardId: "ABC" },
    });
    expect(router.match("GET", "/v1/nothing").kind).toBe("no-path");
    expect(router.match("PUT", "/v1/companies")).toEqual({
      kind: "no-method",
      path: "/v1/companies",
      methods: ["GET", "POST"],
    });
    expect(router.match("POST", "/_sandbox/clock/advance")).toMatchObject({
      operation: { operationId: "advanceClock", needsApiKey: false },
    });
  });

  it("coerces query values to their type and names what is wrong", () => {
    const match = router.match("GET", "/v1/cards");
    if (match.kind !== "operation") throw new Error("no listCards");
    const ok = router.validateParameters(match.operation, {
      path: {},
      query: new URLSearchParams("page=2&limit=5"),
      headers: { "x-company-id": "01JD8X4M6Q2V7R9T3W5Y0Z1A2B" },
    });
    expect(ok).toEqual({ values: { "X-Company-Id": "01JD8X4M6Q2V7R9T3W5Y0Z1A2B", page: 2, limit: 5 }, issues: [] });
    const bad = router.validateParameters(match.operation, {
      path: {},
      query: new URLSearchParams("page=x"),
      headers: {},
    });
    expect(bad.issues.map((issue) => issue.location)).toEqual([
      ["header", "X-Company-Id"],
      ["query", "page"],
    ]);
  });

  it("validates bodies and responses against the operation's schemas", () => {
    const match = router.match("POST", "/_sandbox/clock/advance");
    if (match.kind !== "operation") throw new Error("no advanceClock");
    expect(router.validateBody(match.operation, "application/json", { seconds: 1 })).toEqual([]);
    expect(router.validateBody(match.operation, "application/json", { seconds: "1" })[0]?.message).toContain("seconds");
    const clock = {
      now: "2030-01-01T00:00:00Z",
      frozen: false,
      speed: 1,
      status: "ready",
      pendingTasks: 0,
      nextDueAt: null,
    };
    expect(router.validateResponse(match.operation, 200, clock)).toEqual([]);
    expect(router.validateResponse(match.operation, 200, {})).not.toEqual([]);
    expect(router.validateResponse(match.operation, 418, {})[0]?.message).toContain("418");
  });
});
