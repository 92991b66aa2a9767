/**
 * The sandbox beside a bare `node:http` server answering the same bytes, operation by operation: what the
 * sandbox's routing, validation, state and serialisation cost on each partner API operation, as a ratio of
 * requests per second (the target: at least 0.6 on every operation), with its state in memory and in a
 * state file (SQLite, group commit: the default), and for the operations that write, a state file with a
 * transaction per request (what group commit is measured against).
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent } from "node:http";
import os from "node:os";
import path from "node:path";
import { requestExamples } from "../generated/examples.ts";
import { type SandboxProcess, startSandboxProcess } from "../scripts/lib/sandbox-process.ts";
import { SOURCE_NODE_ARGS } from "../scripts/lib/source.ts";
import type { Benchmark } from "./context.ts";
import { median, percentile, roundOrder } from "./harness.ts";
import { load, type MockOperation, recordAnswers, startBareServer, type Target } from "./mock.ts";
import type { Figure, Ratio } from "./results.ts";
import { sandboxCall as call, type StartedSandbox, startSandboxCommand } from "./sandbox.ts";

/** The target: each operation's requests/s at least this share of the bare server's. */
export const TARGET_SHARE_OF_BARE = 0.6;
/** Cards in the company whose cards are listed (the issue measured listCards with 50). */
const LISTED_CARDS = 50;

/** A request of one operation, as an API key sends it (its company in X-Company-Id, its body as JSON). */
function op(
  name: string,
  apiKey: string,
  method: string,
  target: string,
  expectedStatus: number,
  companyId?: string,
  body?: unknown,
): MockOperation {
  return {
    name,
    method,
    url: target,
    body: body === undefined ? "" : JSON.stringify(body),
    expectedStatus,
    headers: {
      "X-API-Key": apiKey,
      ...(companyId ? { "X-Company-Id": companyId } : {}),
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
  };
}

/** A card of the contract's example for this card holder. */
const card = (cardHolderId: string) => ({ ...requestExamples.createCard.travelCard, cardHolderId, bin: "45671234" });

/** The seeded company of an account (seeding it), its first card holder and wallet. */
async function seeded(url: string, apiKey: string) {
  const companyId = (await call(url, apiKey, "GET", "/v1/companies")).companies[0].id as string;
  const holders = await call(url, apiKey, "GET", `/_sandbox/companies/${companyId}/card-holders`);
  const wallets = await call(url, apiKey, "GET", `/_sandbox/companies/${companyId}/wallets`);
  return { companyId, cardHolderId: holders.cardHolders[0].id as string, walletId: wallets.wallets[0].id as string };
}

/** The reading account: its seeded company with 50 cards, and a company cleared for a route with one deposit. */
async function readingAccount(url: string, apiKey: string) {
  const ids = await seeded(url, apiKey);
  for (let i = 0; i < LISTED_CARDS - 1; i++)
    await call(url, apiKey, "POST", "/v1/cards", card(ids.cardHolderId), ids.companyId);
  const cards = (await call(url, apiKey, "GET", "/v1/cards?limit=100", undefined, ids.companyId)).cards;
  const company = (
    await call(url, apiKey, "POST", "/v1/companies", {
      ...requestExamples.onboardCompany.cardOnlyCompany,
      products: ["Swap"],
    })
  ).company.id as string;
  const route = (
    await call(url, apiKey, "POST", `/_sandbox/companies/${company}/payment-routes`, { type: "onramp", force: true })
  ).paymentRoute.id as string;
  const deposit = await call(url, apiKey, "POST", `/_sandbox/payment-routes/${route}/deposits`, {
    amount: 100,
    force: true,
  });
  return {
    ...ids,
    cardId: cards[0].id as string,
    routeId: route,
    routeCompanyId: company,
    transactionId: deposit.transaction.id as string,
  };
}

/** The operations that only read, all by the reading account (createCardDetailsToken makes a token, kept apart). */
function readingOperations(reader: string, read: Awaited<ReturnType<typeof readingAccount>>): MockOperation[] {
  const route = `/v1/payment-routes/${read.routeId}`;
  return [
    op("listCompanies", reader, "GET", "/v1/companies", 200),
    op(`listCards (${LISTED_CARDS} cards, a page of 20)`, reader, "GET", "/v1/cards", 200, read.companyId),
    op("listCardBins", reader, "GET", "/v1/card-bins", 200, read.companyId),
    op("getCardHolder", reader, "GET", `/v1/card-holders/${read.cardHolderId}`, 200, read.companyId),
    op("listSpendingAccountTransactions", reader, "GET", "/v1/card-spending-account/transactions", 200, read.companyId),
    op("getTransaction", reader, "GET", `/transactions/${read.transactionId}`, 200),
    op("getPaymentRoute", reader, "GET", route, 200, read.routeCompanyId),
    op("getPaymentInstructions", reader, "GET", `${route}/payment-instructions`, 200, read.routeCompanyId),
    op("createCardDetailsToken", reader, "POST", `/v1/cards/${read.cardId}/details`, 200, read.companyId),
  ];
}

/**
 * Every partner operation the sandbox serves, each with ids the sandbox knows. Each operation that changes
 * something has an account of its own, so what it makes (companies, cards) does not grow what another lists.
 */
async function operations(url: string): Promise<MockOperation[]> {
  const reader = "bench-reader";
  const read = await readingAccount(url, reader);
  const writer = await seeded(url, "bench-writer");
  const writerCard = (await call(url, "bench-writer", "POST", "/v1/cards", card(writer.cardHolderId), writer.companyId))
    .card.id as string;
  const opener = await seeded(url, "bench-opener");
  await call(url, "bench-opener", "POST", `/v1/wallets/${opener.walletId}/addresses`, {}, opener.companyId);
  const onboarder = "bench-onboarder";
  await call(url, onboarder, "GET", "/v1/companies");
  const kyb = await seeded(url, "bench-kyb");
  const maker = await seeded(url, "bench-maker");
  const { onboardCompany, submitKybProfile, updateCardSpendSettings } = requestExamples;
  return [
    ...readingOperations(reader, read),
    op("createCard", "bench-writer", "POST", "/v1/cards", 201, writer.companyId, card(writer.cardHolderId)),
    op(
      "updateCardSpendSettings",
      "bench-writer",
      "PATCH",
      `/v1/cards/${writerCard}/spend-settings`,
      200,
      writer.companyId,
      updateCardSpendSettings.unlimited,
    ),
    op("unfreezeCard", "bench-writer", "PATCH", `/v1/cards/${writerCard}/unfreeze`, 200, writer.companyId, {}),
    op(
      "openWalletAddress (the address it has)",
      "bench-opener",
      "POST",
      `/v1/wallets/${opener.walletId}/addresses`,
      200,
      opener.companyId,
      {},
    ),
    op("onboardCompany", onboarder, "POST", "/v1/companies", 201, undefined, onboardCompany.cardOnlyCompany),
    op(
      "submitKybProfile",
      "bench-kyb",
      "POST",
      "/v1/kyb-profiles",
      201,
      kyb.companyId,
      submitKybProfile.usSoftwareCompany,
    ),
    op(
      "createCard (another account)",
      "bench-maker",
      "POST",
      "/v1/cards",
      201,
      maker.companyId,
      card(maker.cardHolderId),
    ),
  ];
}

/**
 * CPU seconds a process has used (user and system, from /proc/<pid>/stat, Linux; clock ticks of 10 ms), or
 * undefined where there is no /proc. Read around each round: what the server spent per request, whatever else the
 * machine is running (requests/s on a shared machine moves with its load; CPU per request much less). `thread`:
 * that thread's alone (/proc/<pid>/task/<pid>/stat is the main thread's: the event loop's).
 */
function cpuSeconds(pid: number, thread?: number): number | undefined {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8");
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th of them.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The process's CPU seconds and its main thread's (the event loop's), or undefined where there is no /proc. */
function cpuNow(pid: number): { all: number; main: number } | undefined {
  const all = cpuSeconds(pid);
  const main = cpuSeconds(pid, pid);
  return all === undefined || main === undefined ? undefined : { all, main };
}

/** One server measured: its name in the figures, where the load goes, its process (for its CPU), its requests. */
interface Side {
  name: string;
  target: Target;
  pid: number;
  ops: MockOperation[];
}

/** How an operation is measured: rounds of requests, the servers one after the other in each. */
interface Rounds {
  rounds: number;
  requestsPerRound: number;
  concurrency: number;
  warmUp: number;
}

/**
 * One operation on every side: requests/s, p99 latency and CPU per request (medians over rounds), and each
 * sandbox's ratio to the bare server (the median of the rounds' own ratios: both measured under the same load).
 */
async function measureOperation(
  index: number,
  operation: MockOperation,
  sandboxes: Side[],
  bare: Side,
  perCommit: Side,
  { rounds, requestsPerRound, concurrency, warmUp }: Rounds,
): Promise<{ figures: Figure[]; ratios: Ratio[] }> {
  // A transaction per request is measured on the operations that write (reads commit nothing).
  const measured = [...sandboxes, bare].filter((side) => side !== perCommit || operation.method !== "GET");
  for (const side of measured) await load(side.target, [side.ops[index]!], warmUp, concurrency);
  const rps = new Map(measured.map((side) => [side, [] as number[]]));
  const p99 = new Map(measured.map((side) => [side, [] as number[]]));
  const cpu = new Map(measured.map((side) => [side, { all: 0, main: 0 }]));
  let cpuMeasured = true;
  /** Each round's sandbox ÷ bare: measured one right after the other, under the same load. */
  const roundRatios = new Map(sandboxes.map((side) => [side, [] as number[]]));
  for (let round = 0; round < rounds; round++) {
    const perSecond = new Map<Side, number>();
    for (const side of roundOrder(measured, round)) {
      const cpuBefore = cpuNow(side.pid);
      const run = await load(side.target, [side.ops[index]!], requestsPerRound, concurrency);
      const cpuAfter = cpuNow(side.pid);
      if (cpuBefore === undefined || cpuAfter === undefined) cpuMeasured = false;
      else {
        cpu.get(side)!.all += cpuAfter.all - cpuBefore.all;
        cpu.get(side)!.main += cpuAfter.main - cpuBefore.main;
      }
      perSecond.set(side, run.perSecond);
      rps.get(side)!.push(run.perSecond);
      p99.get(side)!.push(percentile(run.latencies, 99));
    }
    for (const side of sandboxes)
      if (perSecond.has(side)) roundRatios.get(side)!.push(perSecond.get(side)! / perSecond.get(bare)!);
  }
  const figures: Figure[] = [];
  for (const side of measured) {
    figures.push(
      { label: `${side.name}, ${operation.name}`, value: median(rps.get(side)!), unit: "requests/s" },
      { label: `${side.name} p99 latency, ${operation.name}`, value: median(p99.get(side)!), unit: "ms" },
    );
    if (cpuMeasured)
      figures.push(
        {
          label: `${side.name} CPU per request, ${operation.name}`,
          value: (cpu.get(side)!.all * 1e6) / (requestsPerRound * rounds),
          unit: "µs",
        },
        {
          label: `${side.name} main thread CPU per request, ${operation.name}`,
          value: (cpu.get(side)!.main * 1e6) / (requestsPerRound * rounds),
          unit: "µs",
        },
      );
  }
  const ratios: Ratio[] = [];
  for (const side of sandboxes)
    if (roundRatios.get(side)!.length > 0)
      ratios.push({
        label: `${side.name} ÷ bare node:http requests/s, ${operation.name}`,
        value: median(roundRatios.get(side)!),
        // What ships is held to the target; a transaction per request is what group commit is measured against.
        ...(side === perCommit ? {} : { target: TARGET_SHARE_OF_BARE }),
      });
  return { figures, ratios };
}

/** The three sandboxes: memory, `--state` (as `npm run sandbox` starts them), and a transaction per request. */
async function startSandboxes(repoRoot: string, dir: string) {
  const script = path.join(repoRoot, "scripts", "sandbox.ts");
  const started: { memory?: StartedSandbox; state?: StartedSandbox; perCommit?: SandboxProcess } = {};
  // A frozen clock: no card turns Active (no timed work) while another operation is measured.
  started.memory = await startSandboxCommand(repoRoot, [...SOURCE_NODE_ARGS, script], ["--frozen"]);
  started.state = await startSandboxCommand(
    repoRoot,
    [...SOURCE_NODE_ARGS, script],
    ["--frozen", "--state", path.join(dir, "group.db")],
  );
  // The same store with a transaction per commit, handed in through the store interface.
  started.perCommit = await startSandboxProcess({
    args: [
      ...SOURCE_NODE_ARGS,
      path.join(repoRoot, "bench", "persistence-server.ts"),
      JSON.stringify({ state: path.join(dir, "per-commit.db"), groupCommit: false }),
    ],
    cwd: repoRoot,
  });
  return started;
}

const method = ({ rounds, requestsPerRound, concurrency, warmUp }: Rounds) =>
  "The sandbox in its own process (`npm run sandbox --frozen`: node on the TypeScript of scripts/sandbox.ts, the clock frozen so no timed work runs while another operation is measured), three times: memory state, `--state` (SQLite, group commit: the default), and for the operations that write, `--state` with a transaction per request (bench/persistence-server.ts handing the store `groupCommit: false`); " +
  "and a bare `node:http` server (bench/bare-server.ts, its own process) replaying the sandbox's recorded status, headers and body for each request. " +
  `Every partner API operation the sandbox serves, one at a time, with ids the sandbox holds (listCards over ${LISTED_CARDS} cards); an operation that changes state has an account of its own. ` +
  `Load from this process over keep-alive loopback connections, ${concurrency} at a time, ${requestsPerRound} requests per round, ` +
  `${rounds} round(s) per operation after a warm-up (a first pass of ${warmUp * 3} requests of every operation on every server, then ${warmUp} of the operation), the servers one after the other in each (their order rotating); figures are medians over rounds, and each ratio is the median of the rounds' own ratios (sandbox ÷ bare measured in the same round).`;

export const sandboxOverheadBenchmark: Benchmark = {
  name: "sandbox-overhead",
  title: "Sandbox beside a bare node:http server answering the same bytes",
  async run({ size, progress, repoRoot }) {
    // A round of a few hundred requests lasts tens of milliseconds: one scheduling hiccup on a shared machine moved a
    // ratio by more than its target's margin. Rounds of thousands, and the median of each round's own ratio.
    const rounds: Rounds = {
      requestsPerRound: size === "full" ? 4_000 : size === "quick" ? 2_000 : 20,
      rounds: size === "full" ? 7 : size === "quick" ? 5 : 1,
      concurrency: 8,
      warmUp: size === "tiny" ? 10 : 300,
    };
    let started: Awaited<ReturnType<typeof startSandboxes>> | undefined;
    let bare: ChildProcess | undefined;
    const agents: Agent[] = [];
    const dir = await mkdtemp(path.join(os.tmpdir(), "partner-bench-overhead-"));
    try {
      progress("sandbox-overhead: starting the sandboxes (as npm run sandbox) and setting up their accounts");
      started = await startSandboxes(repoRoot, dir);
      const { memory, state, perCommit } = started as Required<typeof started>;
      const target = (port: number) => {
        const made: Target = { port, agent: new Agent({ keepAlive: true, maxSockets: rounds.concurrency }) };
        agents.push(made.agent);
        return made;
      };
      const side = async (name: string, port: number, pid: number, url: string): Promise<Side> => ({
        name,
        target: target(port),
        pid,
        ops: await operations(url),
      });
      const sandboxes = [
        await side("sandbox", memory.port, memory.pid, memory.url),
        await side("sandbox --state", state.port, state.pid, state.url),
        await side("sandbox --state, a transaction per request", perCommit.port, perCommit.child.pid!, perCommit.url),
      ];
      const ops = sandboxes[0]!.ops;
      // The sandbox's answer to each, replayed byte for byte by the bare server.
      const recordings = await recordAnswers(
        sandboxes[0]!.target,
        ops,
        (operation, answer) =>
          `sandbox-overhead: ${operation.name} answered ${answer.status}: ${answer.body.slice(0, 200)}`,
      );
      const server = await startBareServer(recordings);
      bare = server.child;
      const bareSide: Side = { name: "bare node:http", target: target(server.port), pid: server.child.pid!, ops };
      // A first pass over every operation on every server, so the code operations share (parsing, validation, the
      // request log, sending) is optimised by V8 before the first is measured rather than while the first few are
      // (docs/design/sandbox-throughput.md: the first operations measured read lowest).
      progress(`sandbox-overhead: warming up, ${rounds.warmUp * 3} requests of every operation on each server`);
      for (const index of ops.keys())
        for (const each of [...sandboxes, bareSide])
          await load(each.target, [each.ops[index]!], rounds.warmUp * 3, rounds.concurrency);
      const figures: Figure[] = [];
      const ratios: Ratio[] = [];
      for (const [index, operation] of ops.entries()) {
        const measured = await measureOperation(index, operation, sandboxes, bareSide, sandboxes[2]!, rounds);
        figures.push(...measured.figures);
        ratios.push(...measured.ratios);
        progress(`sandbox-overhead ${operation.name}: ${rounds.rounds} round(s)`);
      }
      return {
        name: this.name,
        title: this.title,
        method: method(rounds),
        figures,
        ratios,
        notes: [
          "The bare server does no work but write the bytes: the ratio is what routing, validation against the contract, the request log, the state and serialising cost on each operation.",
          "CPU per request is each server process's user and system time (/proc/<pid>/stat, 10 ms ticks) over the measured rounds, divided by their requests (all its threads: with --state, the writer and checkpoint threads too); main thread CPU is the event loop's alone (/proc/<pid>/task/<pid>/stat), what every request waits behind. On a machine others load, requests/s moves with the load and these much less.",
          "createCard, onboardCompany and submitKybProfile change state on every call (a card, a company, a review task); their answers differ call by call, and the bare server replays the first one.",
          "With --state every request that writes is answered after its transaction commits (WAL, synchronous NORMAL), run on the event loop; with group commit the commits asked for in one turn of the event loop share one transaction, written at the end of the turn.",
        ],
      };
    } finally {
      for (const agent of agents) agent.destroy();
      bare?.kill("SIGKILL");
      await started?.memory?.process.stop("SIGTERM");
      await started?.state?.process.stop("SIGTERM");
      await started?.perCommit?.stop("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    }
  },
};
