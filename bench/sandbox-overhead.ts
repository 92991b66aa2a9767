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

/**
 * Every partner operation the sandbox serves, each with ids the sandbox knows. Each operation that changes
 * something has an account of its own, so what it makes (companies, cards) does not grow what another lists.
 */
async function operations(url: string): Promise<MockOperation[]> {
  const seeded = async (apiKey: string) => {
    const companyId = (await call(url, apiKey, "GET", "/v1/companies")).companies[0].id as string;
    const holders = await call(url, apiKey, "GET", `/_sandbox/companies/${companyId}/card-holders`);
    const wallets = await call(url, apiKey, "GET", `/_sandbox/companies/${companyId}/wallets`);
    return { companyId, cardHolderId: holders.cardHolders[0].id as string, walletId: wallets.wallets[0].id as string };
  };
  const card = (cardHolderId: string) => ({ ...requestExamples.createCard.travelCard, cardHolderId, bin: "45671234" });
  const op = (
    name: string,
    apiKey: string,
    method: string,
    target: string,
    expectedStatus: number,
    companyId?: string,
    body?: unknown,
  ): MockOperation => ({
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
  });
  // The reading account: 50 cards, a route with a deposit, the seeded ledger.
  const reader = "bench-reader";
  const read = await seededState(url, reader);
  for (let i = 0; i < LISTED_CARDS - 1; i++)
    await call(url, reader, "POST", "/v1/cards", card(read.cardHolderId), read.companyId);
  const cards = (await call(url, reader, "GET", "/v1/cards?limit=100", undefined, read.companyId)).cards;
  const cardId = cards[0].id as string;
  const writer = await seeded("bench-writer");
  const writerCard = (await call(url, "bench-writer", "POST", "/v1/cards", card(writer.cardHolderId), writer.companyId))
    .card.id as string;
  const opener = await seeded("bench-opener");
  await call(url, "bench-opener", "POST", `/v1/wallets/${opener.walletId}/addresses`, {}, opener.companyId);
  const onboarder = "bench-onboarder";
  await call(url, onboarder, "GET", "/v1/companies");
  const kyb = await seeded("bench-kyb");
  const maker = await seeded("bench-maker");
  return [
    op("listCompanies", reader, "GET", "/v1/companies", 200),
    op(`listCards (${LISTED_CARDS} cards, a page of 20)`, reader, "GET", "/v1/cards", 200, read.companyId),
    op("listCardBins", reader, "GET", "/v1/card-bins", 200, read.companyId),
    op("getCardHolder", reader, "GET", `/v1/card-holders/${read.cardHolderId}`, 200, read.companyId),
    op("listSpendingAccountTransactions", reader, "GET", "/v1/card-spending-account/transactions", 200, read.companyId),
    op("getTransaction", reader, "GET", `/transactions/${read.transactionId}`, 200),
    op("getPaymentRoute", reader, "GET", `/v1/payment-routes/${read.routeId}`, 200, read.routeCompanyId),
    op(
      "getPaymentInstructions",
      reader,
      "GET",
      `/v1/payment-routes/${read.routeId}/payment-instructions`,
      200,
      read.routeCompanyId,
    ),
    op("createCardDetailsToken", reader, "POST", `/v1/cards/${cardId}/details`, 200, read.companyId),
    op("createCard", "bench-writer", "POST", "/v1/cards", 201, writer.companyId, card(writer.cardHolderId)),
    op(
      "updateCardSpendSettings",
      "bench-writer",
      "PATCH",
      `/v1/cards/${writerCard}/spend-settings`,
      200,
      writer.companyId,
      requestExamples.updateCardSpendSettings.unlimited,
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
    op(
      "onboardCompany",
      onboarder,
      "POST",
      "/v1/companies",
      201,
      undefined,
      requestExamples.onboardCompany.cardOnlyCompany,
    ),
    op(
      "submitKybProfile",
      "bench-kyb",
      "POST",
      "/v1/kyb-profiles",
      201,
      kyb.companyId,
      requestExamples.submitKybProfile.usSoftwareCompany,
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

  /** The reading account's seeded company, and a company cleared for a route with one deposit. */
  async function seededState(base: string, apiKey: string) {
    const ids = await seeded(apiKey);
    const company = (
      await call(base, apiKey, "POST", "/v1/companies", {
        ...requestExamples.onboardCompany.cardOnlyCompany,
        products: ["Swap"],
      })
    ).company.id as string;
    const route = (
      await call(base, apiKey, "POST", `/_sandbox/companies/${company}/payment-routes`, { type: "onramp", force: true })
    ).paymentRoute.id as string;
    const deposit = await call(base, apiKey, "POST", `/_sandbox/payment-routes/${route}/deposits`, {
      amount: 100,
      force: true,
    });
    return { ...ids, routeId: route, routeCompanyId: company, transactionId: deposit.transaction.id as string };
  }
}

/**
 * CPU seconds a process has used (user and system, from /proc/<pid>/stat, Linux; clock ticks of 10 ms), or
 * undefined where there is no /proc. Read around each round: what the server spent per request, whatever else the
 * machine is running (requests/s on a shared machine moves with its load; CPU per request much less).
 */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th of them.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

export const sandboxOverheadBenchmark: Benchmark = {
  name: "sandbox-overhead",
  title: "Sandbox beside a bare node:http server answering the same bytes",
  async run({ size, progress, repoRoot }) {
    // A round of a few hundred requests lasts tens of milliseconds: one scheduling hiccup on a shared machine moved a
    // ratio by more than its target's margin. Rounds of thousands, and the median of each round's own ratio.
    const requestsPerRound = size === "full" ? 4_000 : size === "quick" ? 2_000 : 20;
    const rounds = size === "full" ? 7 : size === "quick" ? 5 : 1;
    const concurrency = 8;
    let sandbox: StartedSandbox | undefined;
    let stateSandbox: StartedSandbox | undefined;
    let perCommit: SandboxProcess | undefined;
    let bare: ChildProcess | undefined;
    const agents: Agent[] = [];
    const dir = await mkdtemp(path.join(os.tmpdir(), "partner-bench-overhead-"));
    try {
      progress("sandbox-overhead: starting the sandboxes (as npm run sandbox) and setting up their accounts");
      // A frozen clock: no card turns Active (no timed work) while another operation is measured.
      sandbox = await startSandboxCommand(
        repoRoot,
        [...SOURCE_NODE_ARGS, path.join(repoRoot, "scripts", "sandbox.ts")],
        ["--frozen"],
      );
      stateSandbox = await startSandboxCommand(
        repoRoot,
        [...SOURCE_NODE_ARGS, path.join(repoRoot, "scripts", "sandbox.ts")],
        ["--frozen", "--state", path.join(dir, "group.db")],
      );
      // The same store with a transaction per commit, handed in through the store interface.
      perCommit = await startSandboxProcess({
        args: [
          ...SOURCE_NODE_ARGS,
          path.join(repoRoot, "bench", "persistence-server.ts"),
          JSON.stringify({ state: path.join(dir, "per-commit.db"), groupCommit: false }),
        ],
        cwd: repoRoot,
      });
      const target = (port: number) => {
        const made: Target = { port, agent: new Agent({ keepAlive: true, maxSockets: concurrency }) };
        agents.push(made.agent);
        return made;
      };
      const sides = [
        { name: "sandbox", target: target(sandbox.port), pid: sandbox.pid, ops: await operations(sandbox.url) },
        {
          name: "sandbox --state",
          target: target(stateSandbox.port),
          pid: stateSandbox.pid,
          ops: await operations(stateSandbox.url),
        },
        {
          name: "sandbox --state, a transaction per request",
          target: target(perCommit.port),
          pid: perCommit.child.pid!,
          ops: await operations(perCommit.url),
        },
      ];
      const ops = sides[0]!.ops;
      // The sandbox's answer to each, replayed byte for byte by the bare server.
      const recordings = await recordAnswers(
        sides[0]!.target,
        ops,
        (operation, answer) =>
          `sandbox-overhead: ${operation.name} answered ${answer.status}: ${answer.body.slice(0, 200)}`,
      );
      const server = await startBareServer(recordings);
      bare = server.child;
      const bareSide = { name: "bare node:http", target: target(server.port), pid: server.child.pid!, ops };
      const warmUp = size === "tiny" ? 10 : 300;
      const figures: Figure[] = [];
      const ratios: Ratio[] = [];
      const all = [...sides, bareSide];
      // A first pass over every operation on every server, so the code operations share (parsing, validation, the
      // request log, sending) is optimised by V8 before the first is measured rather than while the first few are
      // (docs/design/sandbox-throughput.md: the first operations measured read lowest).
      progress(`sandbox-overhead: warming up, ${warmUp * 3} requests of every operation on each server`);
      for (const index of ops.keys())
        for (const side of all) await load(side.target, [side.ops[index]!], warmUp * 3, concurrency);
      for (const [index, operation] of ops.entries()) {
        // A transaction per request is measured on the operations that write (reads commit nothing).
        const measured = all.filter((side) => side !== sides[2] || operation.method !== "GET");
        for (const side of measured) await load(side.target, [side.ops[index]!], warmUp, concurrency);
        const rps = new Map(measured.map((side) => [side.name, [] as number[]]));
        const p99 = new Map(measured.map((side) => [side.name, [] as number[]]));
        const cpu = new Map(measured.map((side) => [side.name, 0]));
        let cpuMeasured = true;
        /** Each round's sandbox ÷ bare: measured one right after the other, under the same load. */
        const roundRatios = new Map(sides.map((side) => [side.name, [] as number[]]));
        for (let round = 0; round < rounds; round++) {
          const perSecond = new Map<string, number>();
          for (const side of roundOrder(measured, round)) {
            const cpuBefore = cpuSeconds(side.pid);
            const run = await load(side.target, [side.ops[index]!], requestsPerRound, concurrency);
            const cpuAfter = cpuSeconds(side.pid);
            if (cpuBefore === undefined || cpuAfter === undefined) cpuMeasured = false;
            else cpu.set(side.name, cpu.get(side.name)! + cpuAfter - cpuBefore);
            perSecond.set(side.name, run.perSecond);
            rps.get(side.name)!.push(run.perSecond);
            p99.get(side.name)!.push(percentile(run.latencies, 99));
          }
          for (const side of sides)
            if (perSecond.has(side.name))
              roundRatios.get(side.name)!.push(perSecond.get(side.name)! / perSecond.get(bareSide.name)!);
        }
        progress(`sandbox-overhead ${operation.name}: ${rounds} round(s)`);
        for (const side of measured) {
          figures.push(
            { label: `${side.name}, ${operation.name}`, value: median(rps.get(side.name)!), unit: "requests/s" },
            { label: `${side.name} p99 latency, ${operation.name}`, value: median(p99.get(side.name)!), unit: "ms" },
          );
          if (cpuMeasured)
            figures.push({
              label: `${side.name} CPU per request, ${operation.name}`,
              value: (cpu.get(side.name)! * 1e6) / (requestsPerRound * rounds),
              unit: "µs",
            });
        }
        for (const side of sides)
          if (roundRatios.get(side.name)!.length > 0)
            ratios.push({
              label: `${side.name} ÷ bare node:http requests/s, ${operation.name}`,
              value: median(roundRatios.get(side.name)!),
              // What ships is held to the target; a transaction per request is what group commit is measured against.
              ...(side === sides[2] ? {} : { target: TARGET_SHARE_OF_BARE }),
            });
      }
      return {
        name: this.name,
        title: this.title,
        method:
          "The sandbox in its own process (`npm run sandbox --frozen`: node on the TypeScript of scripts/sandbox.ts, the clock frozen so no timed work runs while another operation is measured), three times: memory state, `--state` (SQLite, group commit: the default), and for the operations that write, `--state` with a transaction per request (bench/persistence-server.ts handing the store `groupCommit: false`); " +
          "and a bare `node:http` server (bench/bare-server.ts, its own process) replaying the sandbox's recorded status, headers and body for each request. " +
          `Every partner API operation the sandbox serves, one at a time, with ids the sandbox holds (listCards over ${LISTED_CARDS} cards); an operation that changes state has an account of its own. ` +
          `Load from this process over keep-alive loopback connections, ${concurrency} at a time, ${requestsPerRound} requests per round, ` +
          `${rounds} round(s) per operation after a warm-up (a first pass of ${warmUp * 3} requests of every operation on every server, then ${warmUp} of the operation), the servers one after the other in each (their order rotating); figures are medians over rounds, and each ratio is the median of the rounds' own ratios (sandbox ÷ bare measured in the same round).`,
        figures,
        ratios,
        notes: [
          "The bare server does no work but write the bytes: the ratio is what routing, validation against the contract, the request log, the state and serialising cost on each operation.",
          "CPU per request is each server process's user and system time (/proc/<pid>/stat, 10 ms ticks) over the measured rounds, divided by their requests: on a machine others load, requests/s moves with the load and this much less.",
          "createCard, onboardCompany and submitKybProfile change state on every call (a card, a company, a review task); their answers differ call by call, and the bare server replays the first one.",
          "With --state every request that writes is answered after its transaction commits (WAL, synchronous NORMAL); with group commit the requests read in one turn of the event loop share one transaction.",
        ],
      };
    } finally {
      for (const agent of agents) agent.destroy();
      bare?.kill("SIGKILL");
      await sandbox?.process.stop("SIGTERM");
      await stateSandbox?.process.stop("SIGTERM");
      await perCommit?.stop("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    }
  },
};
