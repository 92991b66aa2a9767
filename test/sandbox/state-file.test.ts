/**
 * The state file (SQLite): what a sandbox reads back from its database is exactly what it holds in memory, after
 * many random changes of every kind (a change the store missed shows as a difference), with group commit and
 * with a transaction per commit; a failed commit is undone and answered 503, and the next one works.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandboxWith } from "../../devkit/src/sandbox/compose.ts";
import { type SandboxOptions, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { type Row, TABLE_NAMES } from "../../devkit/src/sandbox/records.ts";
import {
  openDatabase,
  openSqliteStore,
  readStateFile,
  type SqliteStore,
  type SqliteStoreOptions,
} from "../../devkit/src/sandbox/store/sqlite-store.ts";
import { startReceiver } from "../../scripts/lib/receiver.ts";
import { seededRandom } from "../helpers/random.ts";
import { clientFor, KYB_PROFILE_BODY, ONBOARD_BODY, request } from "./support.ts";

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-state-file-"));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

const START = "2030-01-01T00:00:00.000Z";
/**
 * Each table's records account by account (accounts by name), each account's in their order: the order the
 * store keeps (the file's order across accounts is the order records were first put, whatever their account).
 */
function byAccount(tables: Record<string, readonly Row[]>) {
  return Object.fromEntries(
    Object.entries(tables).map(([table, records]) => {
      const accounts = new Map<string, Row[]>();
      for (const record of records) accounts.set(record.account, [...(accounts.get(record.account) ?? []), record]);
      return [table, [...accounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))];
    }),
  );
}

/** The state as the file holds it: every table's records, the clock and the task counter. */
function onDisk(file: string) {
  const { records, clock, nextTaskId, seed } = readStateFile(file, path.basename(file))!;
  return { records: byAccount(records), clock, nextTaskId, seed };
}

/** Every table's records as the store holds them in memory. */
function inMemory(store: SqliteStore) {
  return byAccount(Object.fromEntries(TABLE_NAMES.map((table) => [table, [...store.all(table)]])));
}

/** The store of the sandbox `stored` started last. */
let lastStore: SqliteStore | undefined;

/** A sandbox whose SQLite store has these options (group commit or not). */
function stored(options: SandboxOptions, store: SqliteStoreOptions) {
  return startSandboxWith(options, {
    storeFor: async (context) => {
      lastStore = await openSqliteStore(context, store);
      return lastStore;
    },
  });
}

/** Records that are not frozen through and through, by table: a change made in place would not be saved. */
function unfrozen(store: SqliteStore): string[] {
  const found: string[] = [];
  const deep = (value: unknown): boolean =>
    value === null ||
    typeof value !== "object" ||
    (Object.isFrozen(value) && Object.values(value as object).every(deep));
  for (const table of TABLE_NAMES) for (const record of store.all(table)) if (!deep(record)) found.push(table);
  return found;
}

interface KnownCompany {
  id: string;
  swap: boolean;
  holders: string[];
  wallets: string[];
  cards: string[];
  routes: string[];
}

/** What a random run knows of one account: the ids it acts on. */
interface Known {
  companies: KnownCompany[];
  endpoints: string[];
  events: string[];
}

/** A random run under way: its sandbox, its chance, the accounts it calls as and what it knows of them. */
interface Run {
  file: string;
  store: SqliteStoreOptions;
  sandbox: StartedSandbox;
  random: ReturnType<typeof seededRandom>;
  keys: string[];
  known: Record<string, Known>;
  receiverUrl: string;
  /** How many answers of each kind and status ("card 201"). */
  statuses: Map<string, number>;
}

type StartedSandbox = Awaited<ReturnType<typeof stored>>;

/** What the database holds must be what memory holds. The sandbox then starts again from it. */
async function checkpoint(run: Run): Promise<void> {
  // Work due now (a resend's delivery) runs after the answer, on the real-time timer: wait for it.
  for (let tries = 0; ; tries++) {
    const clock = await request(run.sandbox.url, "GET", "/_sandbox/clock");
    if (clock.body.status === "ready") break;
    if (tries > 200) throw new Error("the sandbox did not settle");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // Every record is held frozen: one changed in place, not put, would throw rather than go unsaved.
  expect(unfrozen(lastStore!)).toEqual([]);
  const fromDisk = onDisk(run.file);
  expect(fromDisk.records).toEqual(inMemory(lastStore!));
  await run.sandbox.stop();
  expect(onDisk(run.file)).toEqual(fromDisk);
  run.sandbox = await stored({ port: 0, state: run.file, frozen: true }, run.store);
  expect(inMemory(lastStore!)).toEqual(fromDisk.records);
}

/** The company, card holder and wallet ids of an account, read from the sandbox the first time it is needed. */
async function knownOf(run: Run, apiKey: string): Promise<Known> {
  if (run.known[apiKey]) return run.known[apiKey];
  const client = clientFor(run.sandbox.url, apiKey);
  const companies = (await client.get("/v1/companies")).body.companies as { id: string }[];
  const entry: Known = { companies: [], endpoints: [], events: [] };
  for (const { id } of companies) entry.companies.push(await knownCompany(client, id, false));
  run.known[apiKey] = entry;
  return entry;
}

async function knownCompany(client: ReturnType<typeof clientFor>, id: string, swap: boolean): Promise<KnownCompany> {
  const holders = (await client.get(`/_sandbox/companies/${id}/card-holders`)).body.cardHolders;
  const wallets = (await client.get(`/_sandbox/companies/${id}/wallets`)).body.wallets;
  return {
    id,
    swap,
    holders: holders.map((h: { id: string }) => h.id),
    wallets: wallets.map((w: { id: string }) => w.id),
    cards: [],
    routes: [],
  };
}

/** One random step's call and what it may act on. */
interface Step {
  run: Run;
  step: number;
  roll: number;
  client: ReturnType<typeof clientFor>;
  account: Known;
  company: KnownCompany;
  /** Counts the answer, which must not be a 5xx. */
  ok: (what: string, status: number) => void;
}

/** A random step on companies, cards, card holders, wallets and payment routes (rolls below 50). */
async function companyStep({ run, step, roll, client, account, company, ok }: Step): Promise<void> {
  const { random } = run;
  if (roll < 8) {
    const swap = random.next() < 0.6;
    const answer = await client.post("/v1/companies", {
      ...ONBOARD_BODY,
      products: swap ? ["Swap", "Card"] : ["Card"],
    });
    ok("onboard", answer.status);
    account.companies.push(await knownCompany(client, answer.body.company.id, swap));
  } else if (roll < 30) {
    const answer = await client.post(
      "/v1/cards",
      {
        cardHolderId: random.pick(company.holders),
        name: `Card ${step}`,
        category: "Other",
        bin: random.pick(["45671234", "53987600"]),
      },
      { companyId: company.id },
    );
    ok("card", answer.status);
    company.cards.push(answer.body.card.id);
  } else if (roll < 34 && company.cards.length > 0) {
    const card = random.pick(company.cards);
    const answer =
      random.next() < 0.5
        ? await client.patch(
            `/v1/cards/${card}/spend-settings`,
            {
              isUnlimitedLimitPerTransaction: false,
              limitPerTransaction: random.int(1000) + 1,
              isAllowedAllCurrencies: true,
            },
            { companyId: company.id },
          )
        : await client.patch(`/v1/cards/${card}/unfreeze`, undefined, { companyId: company.id });
    ok("card change", answer.status);
  } else if (roll < 37) {
    const answer = await client.post(`/_sandbox/companies/${company.id}/card-holders`, {
      name: "Holder",
      email: `h${step}@example.com`,
    });
    ok("holder", answer.status);
    company.holders.push(answer.body.cardHolder.id);
  } else if (roll < 40) {
    const answer = await client.post(`/_sandbox/companies/${company.id}/wallets`, {
      currency: random.pick(["USDC", "USDT"]),
    });
    ok("wallet", answer.status);
    company.wallets.push(answer.body.wallet.id);
  } else if (roll < 44) {
    const answer = await client.post(
      `/v1/wallets/${random.pick(company.wallets)}/addresses`,
      {},
      { companyId: company.id },
    );
    ok("address", answer.status);
  } else if (roll < 50) {
    const answer = await client.post(`/_sandbox/companies/${company.id}/payment-routes`, {
      type: random.pick(["onramp", "offramp"]),
      force: true,
    });
    ok("route", answer.status);
    company.routes.push(answer.body.paymentRoute.id);
  }
}

/** A random step on deposits, ledger entries, a company's statuses, KYB profiles and the hosted pages (50 to 71). */
async function statusStep({ run, roll, client, account, company, ok }: Step): Promise<void> {
  const { random } = run;
  if (roll < 58 && company.routes.length > 0) {
    const answer = await client.post(`/_sandbox/payment-routes/${random.pick(company.routes)}/deposits`, {
      amount: random.int(5000) + 1,
      force: true,
    });
    ok("deposit", answer.status);
  } else if (roll < 62) {
    const answer = await client.post(`/_sandbox/companies/${company.id}/spending-account/entries`, {
      type: random.pick(["Account", "Card", "PaymentAcceptance"]),
      direction: random.pick(["Credit", "Debit"]),
      amount: random.int(300) + 1,
    });
    ok("entry", answer.status);
  } else if (roll < 66) {
    const which = random.int(4);
    const [target, body] =
      which === 0
        ? ["kyc-status", { kycStatus: random.pick(["approved", "rejected", "under_review"]) }]
        : which === 1
          ? ["terms-acceptance", { tosAccepted: random.next() < 0.5 }]
          : which === 2
            ? ["onboarding-status", { status: random.pick(["Active", "Pending", "Rejected"]) }]
            : ["kyb-result", { status: random.pick(["APPROVED", "REJECTED"]) }];
    ok("company status", (await client.post(`/_sandbox/companies/${company.id}/${target}`, body)).status);
  } else if (roll < 69) {
    const answer = await client.post("/v1/kyb-profiles", KYB_PROFILE_BODY, { companyId: company.id });
    ok("kyb", answer.status);
  } else {
    const swapCompany = account.companies.find((c) => c.swap);
    if (!swapCompany) return;
    const form = random.next() < 0.5 ? `action=${random.pick(["start", "submit", "complete", "pause"])}` : "accept=yes";
    const page = form.startsWith("action") ? "kyc" : "tos";
    const answer = await request(run.sandbox.url, "POST", `/_sandbox/hosted/${page}/${swapCompany.id}`, {
      rawBody: form,
      contentType: "application/x-www-form-urlencoded",
    });
    ok("hosted", answer.status);
  }
}

/** A random step on webhook endpoints, events, the clock, a reset and new accounts (rolls of 72 and over). */
async function sandboxStep({ run, step, roll, client, account, ok }: Step): Promise<void> {
  const { random } = run;
  if (roll < 77) {
    const answer = await client.post("/_sandbox/webhook-endpoints", { url: run.receiverUrl, secret: "s" });
    ok("endpoint", answer.status);
    account.endpoints.push(answer.body.id);
  } else if (roll < 80 && account.endpoints.length > 0) {
    const endpoint = random.pick(account.endpoints);
    if (random.next() < 0.5) {
      const events = ["payment_route.created"];
      ok("endpoint update", (await client.patch(`/_sandbox/webhook-endpoints/${endpoint}`, { events })).status);
    } else {
      ok("endpoint delete", (await client.delete(`/_sandbox/webhook-endpoints/${endpoint}`)).status);
      account.endpoints = account.endpoints.filter((e) => e !== endpoint);
    }
  } else if (roll < 83) {
    const events = (await client.get("/_sandbox/events")).body.events as { id: string }[];
    if (events.length > 0)
      ok("resend", (await client.post(`/_sandbox/events/${random.pick(events).id}/resend`)).status);
  } else if (roll < 93) {
    ok("advance", (await client.post("/_sandbox/clock/advance", { seconds: random.int(400) })).status);
  } else if (roll < 94) {
    ok("reset", (await client.post("/_sandbox/reset")).status);
    run.known = {};
  } else {
    // A new account's first call (a GET) seeds it.
    const fresh = `fresh-${step}`;
    run.keys.push(fresh);
    ok("seed", (await clientFor(run.sandbox.url, fresh).get("/v1/companies")).status);
  }
}

/**
 * One random run: `steps` random changes of every kind by several accounts, with a checkpoint every
 * `checkpointEvery` steps and at the end (the database read back while the sandbox runs equals what memory
 * holds, and what it holds after a clean stop; the sandbox starts again from it).
 */
async function randomRun({
  store,
  seed,
  steps,
  checkpointEvery,
}: {
  store: SqliteStoreOptions;
  seed: number;
  steps: number;
  checkpointEvery: number;
}): Promise<void> {
  const file = path.join(folder, `random-${seed}-${store.groupCommit ?? true}.db`);
  const receiver = await startReceiver([200, 500, 500, 200, 500]);
  const run: Run = {
    file,
    store,
    sandbox: await stored({ port: 0, seed: 3, state: file, frozen: true, startTime: START }, store),
    random: seededRandom(seed),
    keys: ["alpha", "beta", "gamma"],
    known: {},
    receiverUrl: receiver.url,
    statuses: new Map(),
  };
  const ok = (what: string, status: number) => {
    run.statuses.set(`${what} ${status}`, (run.statuses.get(`${what} ${status}`) ?? 0) + 1);
    expect(status, what).toBeLessThan(500);
  };
  try {
    for (let step = 0; step < steps; step++) {
      if (step % checkpointEvery === checkpointEvery - 1) await checkpoint(run);
      const apiKey = run.random.pick(run.keys);
      const client = clientFor(run.sandbox.url, apiKey);
      const account = await knownOf(run, apiKey);
      const company = run.random.pick(account.companies);
      const roll = run.random.int(100);
      const at: Step = { run, step, roll, client, account, company, ok };
      await (roll < 50 ? companyStep(at) : roll < 72 ? statusStep(at) : sandboxStep(at));
    }
    // Every answer is durable: the files hold what memory holds.
    await checkpoint(run);
    // Most of the calls changed something (a run of refusals would test nothing).
    expect(
      [...run.statuses].filter(([key]) => / 2\d\d$/.test(key)).reduce((sum, [, count]) => sum + count, 0),
    ).toBeGreaterThan(steps * 0.65);
  } finally {
    await run.sandbox.stop();
    await receiver.close();
  }
}

describe("the database against memory", () => {
  const title = "after 200 random changes of every kind, the database reads back exactly what the sandbox held";
  // Seconds of CPU: npm run test:all runs it (docs/api-team.md, "The fast command and the whole set").
  it(`${title} (group commit)`, { tags: ["slow"], timeout: 60_000 }, () =>
    randomRun({ store: {}, seed: 20261125, steps: 200, checkpointEvery: 50 }),
  );

  it(`${title} (a transaction per commit)`, { tags: ["slow"], timeout: 60_000 }, () =>
    randomRun({ store: { groupCommit: false }, seed: 7, steps: 200, checkpointEvery: 50 }),
  );

  it("holds 20 runs in a row (other seeds) while a second thread keeps a core busy", {
    tags: ["slow"],
    timeout: 600_000,
  }, async () => {
    // A second CPU load inside the test: a worker thread spinning for the whole soak, so timers, commits and
    // deliveries run late, as on a loaded machine.
    const load = new Worker("for (;;) {}", { eval: true });
    const started = performance.now();
    try {
      for (let run = 0; run < 20; run++)
        await randomRun({ store: {}, seed: 1000 + run, steps: 60, checkpointEvery: 30 });
    } finally {
      await load.terminate();
    }
    expect(performance.now() - started).toBeGreaterThan(0);
  });
});

describe("a delivery attempt's outcome", () => {
  it("is in the database once the clock reports ready", async () => {
    const receiver = await startReceiver({ delayMs: 300 });
    const { url } = receiver;
    const file = path.join(folder, "outcome.db");
    const sandbox = await stored({ port: 0, seed: 3, state: file, frozen: true, startTime: START }, {});
    try {
      const client = clientFor(sandbox.url, "outcome");
      await client.post("/_sandbox/webhook-endpoints", { url, secret: "s" });
      await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
      for (let tries = 0; (await request(sandbox.url, "GET", "/_sandbox/clock")).body.status !== "ready"; tries++) {
        if (tries > 400) throw new Error("the sandbox did not settle");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const deliveries = readStateFile(file, "outcome.db")!.records.deliveries;
      expect(deliveries.map((record) => record.delivery.statusCode)).toEqual([200]);
    } finally {
      await sandbox.stop();
      await receiver.close();
    }
  });
});

describe("a commit that fails", () => {
  it("is undone and answered 503; the next commit is saved, and a restart reads what was answered", async () => {
    const file = path.join(folder, "failing.db");
    const sandbox = await startSandbox({ port: 0, seed: 5, state: file, frozen: true, startTime: START });
    const client = clientFor(sandbox.url, "failing");
    const companyId = (await client.get("/v1/companies")).body.companies[0].id;
    const holder = (await client.get(`/_sandbox/companies/${companyId}/card-holders`)).body.cardHolders[0].id;
    const card = { cardHolderId: holder, name: "Card", category: "Other", bin: "45671234" };
    // Another connection (as the sqlite3 command would be) makes SQLite refuse every new card, as a full disk would.
    const other = openDatabase(file);
    other.exec("CREATE TRIGGER refuse BEFORE INSERT ON cards BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    const failed = await client.post("/v1/cards", card, { companyId });
    expect(failed.status).toBe(503);
    expect(failed.body.detail).toMatch(/not saved.*failing\.db.*refused by the test/);
    const named = async (name: string) =>
      (await client.get("/v1/cards", { companyId })).body.cards.filter((c: { name: string }) => c.name === name);
    expect(await named("Card")).toEqual([]);
    expect(readStateFile(file, "failing.db")!.records.cards.filter((c) => c.card.name === "Card")).toEqual([]);
    other.exec("DROP TRIGGER refuse");
    other.close();
    const saved = await client.post("/v1/cards", card, { companyId });
    expect(saved.status).toBe(201);
    const listed = (await client.get("/v1/cards", { companyId })).body.cards.map((c: { id: string }) => c.id);
    // The contract examples' card (seeded), then the one saved.
    expect(listed).toEqual([expect.any(String), saved.body.card.id]);
    expect(readStateFile(file, "failing.db")!.records.cards.map((c) => c.id)).toEqual(listed);
    await sandbox.stop();
    const again = await startSandbox({ port: 0, state: file });
    expect(
      (await clientFor(again.url, "failing").get("/v1/cards", { companyId })).body.cards.map(
        (c: { id: string }) => c.id,
      ),
    ).toEqual(listed);
    await again.stop();
  });
});

describe("lookups across accounts", () => {
  it("a transaction or hosted page of another account is found by index, kept as records are added, and gone after a reset", async () => {
    const sandbox = await startSandbox({ port: 0, seed: 8 });
    const owner = clientFor(sandbox.url, "owner");
    const other = clientFor(sandbox.url, "other");
    await other.get("/v1/companies");
    // The indexes are built now (one lookup), and must take in what is made after.
    expect((await other.get("/transactions/01JD8X4M6Q2V7R9T3W5Y0Z1A2B")).status).toBe(404);
    const onboarded = await owner.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    const companyId = onboarded.body.company.id;
    const route = await owner.post(`/_sandbox/companies/${companyId}/payment-routes`, { type: "onramp", force: true });
    const deposit = await owner.post(`/_sandbox/payment-routes/${route.body.paymentRoute.id}/deposits`, {
      amount: 10,
      force: true,
    });
    const id = deposit.body.transaction.id;
    expect((await owner.get(`/transactions/${id}`)).status).toBe(200);
    expect((await other.get(`/transactions/${id}`)).status).toBe(403);
    expect((await fetch(`${sandbox.url}/_sandbox/hosted/kyc/${companyId}`)).status).toBe(200);
    await owner.post("/_sandbox/reset");
    expect((await other.get(`/transactions/${id}`)).status).toBe(404);
    expect((await fetch(`${sandbox.url}/_sandbox/hosted/kyc/${companyId}`)).status).toBe(404);
    await sandbox.stop();
  });
});
