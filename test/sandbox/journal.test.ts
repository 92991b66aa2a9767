/**
 * The state file's journal: what a sandbox reads back from its files is exactly what it holds in memory, after
 * many random changes of every kind (a change the journal missed shows as a difference); a failed write is
 * undone and answered 503, and the next one works; stray temporary files go at start; a version 1 file
 * (the whole state in one file) still loads.
 */
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandboxWith } from "../../devkit/src/sandbox/compose.ts";
import { type SandboxOptions, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { TABLE_NAMES } from "../../devkit/src/sandbox/records.ts";
import { journalFile, journalGenerations } from "../../devkit/src/sandbox/store/files.ts";
import {
  DEFAULT_JOURNAL_IO,
  type JournalIo,
  type JournalStore,
  type JournalStoreOptions,
  openJournalStore,
} from "../../devkit/src/sandbox/store/journal-store.ts";
import { loadStateFiles, STATE_VERSION } from "../../devkit/src/sandbox/store/load.ts";
import { startReceiver } from "../../scripts/lib/receiver.ts";
import { seededRandom } from "../helpers/random.ts";
import { clientFor, KYB_PROFILE_BODY, ONBOARD_BODY, request } from "./support.ts";

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-journal-"));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

const START = "2030-01-01T00:00:00.000Z";
/** The state as the files hold it: every table's records in their order, the clock and the task counter. */
function onDisk(file: string) {
  const { records, clock, nextTaskId, seed } = loadStateFiles(file, path.basename(file))!;
  return { records, clock, nextTaskId, seed };
}

/** The store of the sandbox `journalled` started last. */
let lastStore: JournalStore | undefined;

/** A sandbox whose journal store has these options (a compaction bound, file operations that fail). */
function journalled(options: SandboxOptions, store: JournalStoreOptions) {
  return startSandboxWith(options, {
    storeFor: async (context) => {
      lastStore = await openJournalStore(context, store);
      return lastStore;
    },
  });
}

/** Records that are not frozen through and through, by table: a change made in place would not be journalled. */
function unfrozen(store: JournalStore): string[] {
  const found: string[] = [];
  const deep = (value: unknown): boolean =>
    value === null ||
    typeof value !== "object" ||
    (Object.isFrozen(value) && Object.values(value as object).every(deep));
  for (const table of TABLE_NAMES) for (const record of store.all(table)) if (!deep(record)) found.push(table);
  return found;
}

/**
 * One random run: `steps` random changes of every kind by several accounts, with a checkpoint every
 * `checkpointEvery` steps and at the end (the files read back while the sandbox runs equal what a clean stop
 * writes from memory, and the sandbox starts again from them). `bound` is the journal's compaction bound.
 */
async function randomRun({
  bound,
  seed,
  steps,
  checkpointEvery,
}: {
  bound: number;
  seed: number;
  steps: number;
  checkpointEvery: number;
}): Promise<void> {
  const file = path.join(folder, `random-${seed}-${bound}.json`);
  const receiver = await startReceiver([200, 500, 500, 200, 500]);
  const store = { compactAtBytes: bound };
  let sandbox = await journalled({ port: 0, seed: 3, state: file, frozen: true, startTime: START }, store);
  /**
   * What the journal holds must be what memory holds: read back before a clean stop, it must equal the
   * snapshot the stop writes from memory. The sandbox then starts again from its files.
   */
  let generation = 0;
  const checkpoint = async () => {
    // Work due now (a resend's delivery) runs after the answer, on the real-time timer: wait for it.
    for (let tries = 0; ; tries++) {
      const clock = await request(sandbox.url, "GET", "/_sandbox/clock");
      if (clock.body.status === "ready") break;
      if (tries > 200) throw new Error("the sandbox did not settle");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Every record is held frozen: one changed in place, not put, would throw rather than go unsaved.
    expect(unfrozen(lastStore!)).toEqual([]);
    const fromJournal = onDisk(file);
    const generations = journalGenerations(file);
    // The generation new lines go to: one more for each compaction (its journal is made on the next write).
    generation = loadStateFiles(file, path.basename(file))!.generation;
    await sandbox.stop();
    const snapshot = onDisk(file);
    expect(fromJournal).toEqual(snapshot);
    // After a clean stop one file holds it all: the journal beside it has no lines.
    const journal = journalFile(file, journalGenerations(file).at(-1)!);
    expect((await readFile(journal, "utf8").catch(() => "")).trim().split("\n").length).toBeLessThanOrEqual(1);
    sandbox = await journalled({ port: 0, state: file, frozen: true }, store);
    return generations;
  };
  const random = seededRandom(seed);
  const keys = ["alpha", "beta", "gamma"];
  type Known = {
    companies: {
      id: string;
      swap: boolean;
      holders: string[];
      wallets: string[];
      cards: string[];
      routes: string[];
    }[];
    endpoints: string[];
    events: string[];
  };
  let known: Record<string, Known> = {};
  const knownOf = async (apiKey: string): Promise<Known> => {
    if (known[apiKey]) return known[apiKey];
    const client = clientFor(sandbox.url, apiKey);
    const companies = (await client.get("/v1/companies")).body.companies as { id: string }[];
    const entry: Known = { companies: [], endpoints: [], events: [] };
    for (const { id } of companies) {
      const holders = (await client.get(`/_sandbox/companies/${id}/card-holders`)).body.cardHolders;
      const wallets = (await client.get(`/_sandbox/companies/${id}/wallets`)).body.wallets;
      entry.companies.push({
        id,
        swap: false,
        holders: holders.map((h: { id: string }) => h.id),
        wallets: wallets.map((w: { id: string }) => w.id),
        cards: [],
        routes: [],
      });
    }
    known[apiKey] = entry;
    return entry;
  };
  const statuses = new Map<string, number>();
  const ok = (what: string, status: number) => {
    statuses.set(`${what} ${status}`, (statuses.get(`${what} ${status}`) ?? 0) + 1);
    expect(status, what).toBeLessThan(500);
  };
  try {
    for (let step = 0; step < steps; step++) {
      if (step % checkpointEvery === checkpointEvery - 1) {
        const generations = await checkpoint();
        if (bound === Number.POSITIVE_INFINITY) expect(generations, "no compaction: one journal").toHaveLength(1);
      }
      const apiKey = random.pick(keys);
      const client = clientFor(sandbox.url, apiKey);
      const account = await knownOf(apiKey);
      const company = random.pick(account.companies);
      const roll = random.int(100);
      if (roll < 8) {
        const swap = random.next() < 0.6;
        const answer = await client.post("/v1/companies", {
          ...ONBOARD_BODY,
          products: swap ? ["Swap", "Card"] : ["Card"],
        });
        ok("onboard", answer.status);
        const id = answer.body.company.id;
        const holders = (await client.get(`/_sandbox/companies/${id}/card-holders`)).body.cardHolders;
        const wallets = (await client.get(`/_sandbox/companies/${id}/wallets`)).body.wallets;
        account.companies.push({
          id,
          swap,
          holders: holders.map((h: { id: string }) => h.id),
          wallets: wallets.map((w: { id: string }) => w.id),
          cards: [],
          routes: [],
        });
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
      } else if (roll < 58 && company.routes.length > 0) {
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
        const answer =
          which === 0
            ? await client.post(`/_sandbox/companies/${company.id}/kyc-status`, {
                kycStatus: random.pick(["approved", "rejected", "under_review"]),
              })
            : which === 1
              ? await client.post(`/_sandbox/companies/${company.id}/terms-acceptance`, {
                  tosAccepted: random.next() < 0.5,
                })
              : which === 2
                ? await client.post(`/_sandbox/companies/${company.id}/onboarding-status`, {
                    status: random.pick(["Active", "Pending", "Rejected"]),
                  })
                : await client.post(`/_sandbox/companies/${company.id}/kyb-result`, {
                    status: random.pick(["APPROVED", "REJECTED"]),
                  });
        ok("company status", answer.status);
      } else if (roll < 69) {
        const answer = await client.post("/v1/kyb-profiles", KYB_PROFILE_BODY, { companyId: company.id });
        ok("kyb", answer.status);
      } else if (roll < 72) {
        const swapCompany = account.companies.find((c) => c.swap);
        if (swapCompany) {
          const form =
            random.next() < 0.5 ? `action=${random.pick(["start", "submit", "complete", "pause"])}` : "accept=yes";
          const page = form.startsWith("action") ? "kyc" : "tos";
          const answer = await request(sandbox.url, "POST", `/_sandbox/hosted/${page}/${swapCompany.id}`, {
            rawBody: form,
            contentType: "application/x-www-form-urlencoded",
          });
          ok("hosted", answer.status);
        }
      } else if (roll < 77) {
        const answer = await client.post("/_sandbox/webhook-endpoints", { url: receiver.url, secret: "s" });
        ok("endpoint", answer.status);
        account.endpoints.push(answer.body.id);
      } else if (roll < 80 && account.endpoints.length > 0) {
        const endpoint = random.pick(account.endpoints);
        if (random.next() < 0.5) {
          ok(
            "endpoint update",
            (await client.patch(`/_sandbox/webhook-endpoints/${endpoint}`, { events: ["payment_route.created"] }))
              .status,
          );
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
        known = {};
      } else {
        // A new account's first call (a GET) seeds it.
        const fresh = `fresh-${step}`;
        keys.push(fresh);
        ok("seed", (await clientFor(sandbox.url, fresh).get("/v1/companies")).status);
      }
    }
    // Every answer is durable: the files hold what memory holds.
    await checkpoint();
    if (bound < Number.POSITIVE_INFINITY) expect(generation, "compactions happened during the run").toBeGreaterThan(2);
    // Most of the calls changed something (a run of refusals would test nothing).
    expect(
      [...statuses].filter(([key]) => / 2\d\d$/.test(key)).reduce((sum, [, count]) => sum + count, 0),
    ).toBeGreaterThan(steps * 0.65);
  } finally {
    await sandbox.stop();
    await receiver.close();
  }
}

describe("the journal against memory", () => {
  const title = "after 200 random changes of every kind, the files read back exactly what the sandbox held";
  // No compaction: every change since the start is read back from the journal alone, so one it missed shows.
  // Seconds of CPU (7 s at load 5, the fast set's longest test): npm run test:all runs it (test/suites.ts's rule).
  it(`${title} (from the journal alone)`, { tags: ["slow"], timeout: 60_000 }, () =>
    randomRun({ bound: Number.POSITIVE_INFINITY, seed: 20261125, steps: 200, checkpointEvery: 50 }),
  );

  // A small bound: compactions (fuzzy snapshots while requests go on) happen during the run too. Several seconds
  // of CPU: npm run test:all runs it, as the run above.
  it(`${title} (with compactions during the run)`, { tags: ["slow"], timeout: 60_000 }, () =>
    randomRun({ bound: 16 * 1024, seed: 7, steps: 200, checkpointEvery: 50 }),
  );

  it("holds 20 runs in a row (other seeds, compactions during each) while a second thread keeps a core busy", {
    tags: ["slow"],
    timeout: 600_000,
  }, async () => {
    // A second CPU load inside the test: a worker thread spinning for the whole soak, so timers, appends and
    // deliveries run late, as on a loaded machine (the run that once failed was in a loaded `npm run test:all`).
    const load = new Worker("for (;;) {}", { eval: true });
    const started = performance.now();
    try {
      for (let run = 0; run < 20; run++)
        await randomRun({ bound: 4 * 1024, seed: 1000 + run, steps: 60, checkpointEvery: 30 });
    } finally {
      await load.terminate();
    }
    expect(performance.now() - started).toBeGreaterThan(0);
  });
});

describe("a delivery attempt's outcome", () => {
  it("is on disk once the clock reports ready (the random run's one failure under load: the line was still being written)", async () => {
    // A receiver that answers after 300 ms and journal appends that take 200 ms: the attempt ends while the line
    // of the work that started it is being written, so its outcome goes in the next line. The clock must not
    // report "ready" (nothing due, nothing under way) before that line is written.
    const receiver = await startReceiver({ delayMs: 300 });
    const { url } = receiver;
    const file = path.join(folder, "outcome.json");
    const io: JournalIo = { ...DEFAULT_JOURNAL_IO };
    const sandbox = await journalled({ port: 0, seed: 3, state: file, frozen: true, startTime: START }, { io });
    try {
      const client = clientFor(sandbox.url, "outcome");
      await client.post("/_sandbox/webhook-endpoints", { url, secret: "s" });
      io.append = async (handle, text) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return DEFAULT_JOURNAL_IO.append(handle, text);
      };
      await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
      for (let tries = 0; (await request(sandbox.url, "GET", "/_sandbox/clock")).body.status !== "ready"; tries++) {
        if (tries > 400) throw new Error("the sandbox did not settle");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const deliveries = onDisk(file).records.deliveries;
      expect(deliveries.map((record) => record.delivery.statusCode)).toEqual([200]);
    } finally {
      io.append = DEFAULT_JOURNAL_IO.append;
      await sandbox.stop();
      await receiver.close();
    }
  });
});

describe("a write that fails", () => {
  it("is undone and answered 503; the next write is saved, and a restart reads what was answered", async () => {
    const file = path.join(folder, "failing.json");
    const io: JournalIo = { ...DEFAULT_JOURNAL_IO };
    const sandbox = await journalled({ port: 0, seed: 5, state: file, frozen: true, startTime: START }, { io });
    const client = clientFor(sandbox.url, "failing");
    const companyId = (await client.get("/v1/companies")).body.companies[0].id;
    const holder = (await client.get(`/_sandbox/companies/${companyId}/card-holders`)).body.cardHolders[0].id;
    const card = { cardHolderId: holder, name: "Card", category: "Other", bin: "45671234" };
    io.append = () => Promise.reject(Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" }));
    const failed = await client.post("/v1/cards", card, { companyId });
    expect(failed.status).toBe(503);
    expect(failed.body.detail).toMatch(/not saved.*failing\.json.*ENOSPC/);
    const named = async (name: string) =>
      (await client.get("/v1/cards", { companyId })).body.cards.filter((c: { name: string }) => c.name === name);
    expect(await named("Card")).toEqual([]);
    io.append = DEFAULT_JOURNAL_IO.append;
    const saved = await client.post("/v1/cards", card, { companyId });
    expect(saved.status).toBe(201);
    const listed = (await client.get("/v1/cards", { companyId })).body.cards.map((c: { id: string }) => c.id);
    // The contract examples' card (seeded), then the one saved.
    expect(listed).toEqual([expect.any(String), saved.body.card.id]);
    expect(onDisk(file).records.cards.map((c) => c.id)).toEqual(listed);
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

describe("the files at start", () => {
  it("temporary files of processes that are gone are removed, a live one's stays, and journals of no snapshot go", async () => {
    const file = path.join(folder, "stray.json");
    const dead = `${file}.2147483646.tmp`;
    const live = `${file}.${process.ppid}.tmp`;
    await writeFile(dead, "{half a snap");
    await writeFile(live, "{being written");
    // A journal without its snapshot (the state file was deleted) would otherwise be read as the new one's.
    const orphan = journalFile(file, 2);
    await writeFile(orphan, '{"format":"partner-api-sandbox-journal","generation":2}\n');
    const sandbox = await startSandbox({ port: 0, state: file });
    await sandbox.stop();
    const names = await readdir(folder);
    expect(names).not.toContain(path.basename(dead));
    expect(names).not.toContain(path.basename(orphan));
    expect(names).toContain(path.basename(live));
    await rm(live);
  });

  it("a torn last journal line is left out, and the next write starts a line of its own", async () => {
    const running = path.join(folder, "running.json");
    const first = await startSandbox({ port: 0, seed: 6, state: running, frozen: true, startTime: START });
    await clientFor(first.url, "torn").post("/v1/companies", ONBOARD_BODY);
    // The files as a kill would leave them: no compaction, and half a line at the end of the journal.
    const file = path.join(folder, "torn.json");
    const generation = journalGenerations(running).at(-1)!;
    await copyFile(running, file);
    const journal = journalFile(file, generation);
    await copyFile(journalFile(running, generation), journal);
    await first.stop();
    const before = onDisk(file);
    await writeFile(journal, `${await readFile(journal, "utf8")}{"clock":"2030-01-01T00:0`);
    expect(onDisk(file)).toEqual(before);
    const second = await startSandbox({ port: 0, state: file, frozen: true });
    await clientFor(second.url, "torn").post("/v1/companies", ONBOARD_BODY);
    expect(onDisk(file).records.companies).toHaveLength(3);
    await second.stop();
  });

  it("a journal line that is not JSON before its last line is refused, naming the journal; the files stay as they were", async () => {
    const running = path.join(folder, "corrupt-source.json");
    const first = await startSandbox({ port: 0, seed: 9, state: running, frozen: true, startTime: START });
    await clientFor(first.url, "corrupt").post("/v1/companies", ONBOARD_BODY);
    const file = path.join(folder, "corrupt.json");
    const generation = journalGenerations(running).at(-1)!;
    await copyFile(running, file);
    await first.stop();
    const journal = journalFile(file, generation);
    const header = `{"format":"partner-api-sandbox-journal","generation":${generation}}`;
    const content = `${header}\n{"clock": nope}\n{"clock":"2030-01-01T00:00:00.000Z","nextTaskId":1,"changes":[]}\n`;
    await writeFile(journal, content);
    const snapshot = await readFile(file, "utf8");
    const error = await startSandbox({ port: 0, state: file }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain(`corrupt.json.journal-${generation} is corrupt (line 2 is not JSON`);
    expect(await readFile(journal, "utf8")).toBe(content);
    expect(await readFile(file, "utf8")).toBe(snapshot);
  });

  it("a version 1 file (the whole state in one file) loads, and is rewritten as a snapshot with a journal", async () => {
    // The release of format version 2 wrote this snapshot (test/sandbox/fixtures/state-v2/); without the
    // journal it names it is the whole state, as a version 1 file held it.
    const fixture = JSON.parse(await readFile(path.resolve("test/sandbox/fixtures/state-v2/state.json"), "utf8"));
    const { journal: _, ...whole } = fixture;
    const file = path.join(folder, "v1.json");
    await writeFile(file, JSON.stringify({ ...whole, version: 1 }));
    const sandbox = await startSandbox({ port: 0, state: file, frozen: true });
    for (const [apiKey, account] of Object.entries(whole.accounts as Record<string, { companies: object[] }>))
      expect((await clientFor(sandbox.url, apiKey).get("/v1/companies")).body.companies).toHaveLength(
        account.companies.length,
      );
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({
      version: STATE_VERSION,
      journal: expect.any(Number),
    });
    await sandbox.stop();
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
