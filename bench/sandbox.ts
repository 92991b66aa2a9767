/**
 * Sandbox: the stateful sandbox (its own process, started as `npm run sandbox` starts it) beside Prism (as
 * `npm run mock` starts it) on the same GET and a POST: requests per second and p99, start-up time, and each
 * process's memory after 10,000 requests, side by side in one run.
 */
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { Agent } from "node:http";
import path from "node:path";
import { build } from "esbuild";
import { bundleDevkit } from "../devkit/scripts/build.ts";
import { type PrismServer, prismVersion, startPrism } from "../devkit/src/prism.ts";
import { type SandboxProcess, startSandboxProcess } from "../scripts/lib/sandbox-process.ts";
import { SOURCE_CONDITION, SOURCE_NODE_ARGS } from "../scripts/lib/source.ts";
import type { Benchmark } from "./context.ts";
import { median, percentile, roundOrder } from "./harness.ts";
import { load, type MockOperation, processMemoryMiB } from "./mock.ts";
import type { BenchResult } from "./results.ts";

const API_KEY = "bench-api-key";
/** The company Prism's examples answer for any id; the sandbox's seeded company is looked up at start. */
const PRISM_COMPANY_ID = "01JD8X4M6Q2V7R9T3W5Y0Z1A2B";
const PRISM_CARD_HOLDER_ID = "01JD8X5H3J7K9M1N3P5Q7R9S1T";
const PRISM_BIN = "45717360";

/** The targets: at least 2x Prism's GET throughput, start-up under 1 s, less memory than Prism. */
const TARGET_GET_RATIO = 2;
const TARGET_STARTUP_MS = 1_000;

export interface StartedSandbox {
  url: string;
  port: number;
  pid: number;
  process: SandboxProcess;
  /** From spawning the process to its first answered request. */
  startupMs: number;
}

/**
 * One call to a sandbox while a benchmark sets up (as the account `apiKey`, for `companyId` when given): the JSON
 * answer, undefined for an empty one. Throws naming the call and the sandbox's answer when it is not a 2xx: a
 * set-up that went wrong must not be measured.
 */
export async function sandboxCall(
  base: string,
  apiKey: string,
  method: string,
  target: string,
  body?: unknown,
  companyId?: string,
  // biome-ignore lint/suspicious/noExplicitAny: the answers are read by each benchmark as it knows them.
): Promise<any> {
  const response = await fetch(base + target, {
    method,
    headers: {
      "X-API-Key": apiKey,
      ...(companyId ? { "X-Company-Id": companyId } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${target} answered ${response.status}: ${text.slice(0, 500)}`);
  return text === "" ? undefined : JSON.parse(text);
}

/**
 * The sandbox in its own process, timed from spawning it to its first answer. `npm run sandbox` is node with
 * node on the TypeScript of scripts/sandbox.ts (`node --conditions=partner-api-source scripts/sandbox.ts`);
 * `npx partner-api sandbox` is node on the built dist/cli.js. `--print-address` has it print its address alone.
 */
export async function startSandboxCommand(
  repoRoot: string,
  entry: string[],
  more: string[] = [],
): Promise<StartedSandbox> {
  const started = performance.now();
  const sandbox = await startSandboxProcess({
    args: [...entry, "--port", "0", "--seed", "1", "--print-address", ...more],
    cwd: repoRoot,
    holdStdin: false,
    timeoutMs: 30_000,
  });
  const answer = await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": API_KEY } });
  await answer.arrayBuffer();
  const startupMs = performance.now() - started;
  return { url: sandbox.url, port: sandbox.port, pid: sandbox.child.pid!, process: sandbox, startupMs };
}

/**
 * The devkit built as it is published (esbuild, plain JavaScript) into .tmp/, beside a copy of its package.json,
 * and its peer dependency the client as plain JavaScript in the node_modules/ beside it (one esbuild bundle of the
 * client's source, found through the source condition), as a partner's project has both installed.
 */
export async function buildPublishedCli(repoRoot: string): Promise<string> {
  const root = path.join(repoRoot, ".tmp", "bench-devkit");
  await rm(root, { recursive: true, force: true });
  await mkdir(path.join(root, "dist"), { recursive: true });
  await copyFile(path.join(repoRoot, "devkit", "package.json"), path.join(root, "package.json"));
  await bundleDevkit(path.join(root, "dist"), { out: () => undefined, err: () => undefined });
  const client = path.join(root, "node_modules", "partner-api-client");
  await build({
    absWorkingDir: repoRoot,
    stdin: { contents: 'export * from "partner-api-client";', resolveDir: repoRoot, loader: "js" },
    outfile: path.join(client, "index.js"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: [SOURCE_CONDITION],
    external: ["openapi-fetch"],
    logLevel: "error",
  });
  await writeFile(
    path.join(client, "package.json"),
    JSON.stringify({ name: "partner-api-client", type: "module", exports: "./index.js" }),
  );
  return path.join(root, "dist", "cli.js");
}

/** Median start-up over `times` starts (each process stopped before the next). */
async function startupMs(repoRoot: string, entry: string[], times: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = await startSandboxCommand(repoRoot, entry);
    samples.push(started.startupMs);
    await started.process.stop("SIGTERM");
  }
  return median(samples);
}

/** The same GET and POST for both servers, each with ids the server knows. */
function operations(companyId: string, cardHolderId: string, bin: string): MockOperation[] {
  const headers = { "X-API-Key": API_KEY, "X-Company-Id": companyId, "Content-Type": "application/json" };
  return [
    { name: "GET /v1/card-bins", method: "GET", url: "/v1/card-bins", body: "", expectedStatus: 200, headers },
    {
      name: "POST /v1/cards (201)",
      method: "POST",
      url: "/v1/cards",
      body: JSON.stringify({ cardHolderId, name: "Travel - Ana Silva", category: "TravelExpenses", bin }),
      expectedStatus: 201,
      headers,
    },
  ];
}

async function json<T>(url: string, headers: Record<string, string>): Promise<T> {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`sandbox: GET ${url} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** What one measuring step adds to the result. */
type Findings = Pick<BenchResult, "figures" | "ratios" | "notes">;
type Progress = (message: string) => void;
/** Each server: where to send, what to send it (its own seeded ids), its process. */
type Sides = Awaited<ReturnType<typeof seededSides>>;

/** Each server with its operations over its seeded ids: the sandbox's own company, card holder and BIN; Prism's examples. */
async function seededSides(sandbox: StartedSandbox, prism: PrismServer, concurrency: number) {
  // The sandbox's seeded company, card holder and BIN for this API key.
  const { companies } = await json<{ companies: { id: string }[] }>(`${sandbox.url}/v1/companies`, {
    "X-API-Key": API_KEY,
  });
  const companyId = companies[0]!.id;
  const { cardHolders } = await json<{ cardHolders: { id: string }[] }>(
    `${sandbox.url}/_sandbox/companies/${companyId}/card-holders`,
    {
      "X-API-Key": API_KEY,
    },
  );
  const { cardBins } = await json<{ cardBins: { bin: string }[] }>(`${sandbox.url}/v1/card-bins`, {
    "X-API-Key": API_KEY,
    "X-Company-Id": companyId,
  });
  const sides = {
    sandbox: {
      target: { port: sandbox.port, agent: new Agent({ keepAlive: true, maxSockets: concurrency }) },
      operations: operations(companyId, cardHolders[0]!.id, cardBins[0]!.bin),
      pid: sandbox.pid,
    },
    prism: {
      target: { port: prism.port, agent: new Agent({ keepAlive: true, maxSockets: concurrency }) },
      operations: operations(PRISM_COMPANY_ID, PRISM_CARD_HOLDER_ID, PRISM_BIN),
      pid: prism.pid,
    },
  };
  return sides;
}

/** Requests per second and p99 latency of each operation on each server, rounds alternating. */
async function measureThroughput(
  sides: Sides,
  rounds: number,
  requestsPerRound: number,
  concurrency: number,
  progress: Progress,
  { figures, ratios }: Findings,
): Promise<void> {
  for (const [index, name] of sides.sandbox.operations.map((op) => op.name).entries()) {
    const samples = {
      sandbox: { rps: [] as number[], p99: [] as number[] },
      prism: { rps: [] as number[], p99: [] as number[] },
    };
    for (let round = 0; round < rounds; round++) {
      for (const side of roundOrder(["sandbox", "prism"] as const, round)) {
        const { target, operations: ops } = sides[side];
        const run = await load(target, [ops[index]!], requestsPerRound, concurrency);
        samples[side].rps.push(run.perSecond);
        samples[side].p99.push(percentile(run.latencies, 99));
      }
      progress(`sandbox ${name}: round ${round + 1}/${rounds}`);
    }
    const sandboxRps = median(samples.sandbox.rps);
    const prismRps = median(samples.prism.rps);
    figures.push(
      { label: `sandbox, ${name}`, value: sandboxRps, unit: "requests/s" },
      { label: `Prism, ${name}`, value: prismRps, unit: "requests/s" },
      { label: `sandbox p99 latency, ${name}`, value: median(samples.sandbox.p99), unit: "ms" },
      { label: `Prism p99 latency, ${name}`, value: median(samples.prism.p99), unit: "ms" },
    );
    ratios.push({
      label: `sandbox ÷ Prism requests/s, ${name}`,
      value: sandboxRps / prismRps,
      ...(index === 0 ? { target: TARGET_GET_RATIO } : {}),
    });
  }
}

/** The start-up figures: both sandbox commands and Prism, and each sandbox's against its target. */
function addStartUps(
  sourceStartupMs: number,
  builtStartupMs: number,
  prismStartupMs: number,
  { figures, ratios }: Findings,
): void {
  figures.push(
    { label: "sandbox start-up, npm run sandbox (spawn to first answer)", value: sourceStartupMs, unit: "ms" },
    {
      label: "sandbox start-up, built partner-api sandbox (spawn to first answer)",
      value: builtStartupMs,
      unit: "ms",
    },
    { label: "Prism start-up (spawn to accepting connections)", value: prismStartupMs, unit: "ms" },
  );
  for (const [name, ms] of [
    ["npm run sandbox", sourceStartupMs],
    ["built partner-api sandbox", builtStartupMs],
  ] as const) {
    ratios.push({
      label: `${TARGET_STARTUP_MS} ms ÷ start-up of ${name} (at least 1: under ${TARGET_STARTUP_MS / 1000} s)`,
      value: TARGET_STARTUP_MS / ms,
      target: 1,
    });
  }
  ratios.push({ label: "Prism start-up ÷ built sandbox start-up", value: prismStartupMs / builtStartupMs });
}

/** Resident memory of each server after the same mixed load. */
async function measureMemory(
  sides: Sides,
  memoryRequests: number,
  concurrency: number,
  progress: Progress,
  { figures, ratios, notes }: Findings,
): Promise<void> {
  progress(`sandbox: ${memoryRequests} mixed requests to each for memory`);
  const memory: Record<string, { rss: number; peak: number } | undefined> = {};
  for (const side of ["sandbox", "prism"] as const) {
    await load(sides[side].target, sides[side].operations, memoryRequests, concurrency);
    memory[side] = processMemoryMiB(sides[side].pid);
  }
  if (memory.sandbox && memory.prism) {
    const count = memoryRequests.toLocaleString("en-US");
    figures.push(
      {
        label: `sandbox RSS after ${count} requests (half of them creating cards)`,
        value: memory.sandbox.rss,
        unit: "MiB",
      },
      { label: `Prism RSS after ${count} requests`, value: memory.prism.rss, unit: "MiB" },
      { label: "sandbox peak RSS (VmHWM)", value: memory.sandbox.peak, unit: "MiB" },
      { label: "Prism peak RSS (VmHWM)", value: memory.prism.peak, unit: "MiB" },
    );
    ratios.push({
      label: `Prism RSS ÷ sandbox RSS after ${count} requests (above 1: the sandbox uses less)`,
      value: memory.prism.rss / memory.sandbox.rss,
      target: 1,
    });
  } else {
    notes.push("Memory not measured: /proc/<pid>/status is not readable on this system.");
  }
}

export const sandboxBenchmark: Benchmark = {
  name: "sandbox",
  title: "Sandbox beside Prism",
  async run({ size, progress, repoRoot }) {
    const requestsPerRound = size === "full" ? 2_000 : size === "quick" ? 500 : 20;
    const rounds = size === "full" ? 5 : size === "quick" ? 3 : 1;
    const memoryRequests = size === "tiny" ? 60 : 10_000;
    const concurrency = 8;
    let prism: PrismServer | undefined;
    let sandbox: StartedSandbox | undefined;
    const agents: Agent[] = [];
    try {
      const npmRunSandbox = [...SOURCE_NODE_ARGS, path.join(repoRoot, "scripts", "sandbox.ts")];
      progress("sandbox: start-up of npm run sandbox and of the built partner-api sandbox");
      const startups = size === "tiny" ? 1 : 3;
      const sourceStartupMs = await startupMs(repoRoot, npmRunSandbox, startups);
      const builtStartupMs = await startupMs(
        repoRoot,
        [await buildPublishedCli(repoRoot), "sandbox"],
        startups,
      ).finally(() => rm(path.join(repoRoot, ".tmp", "bench-devkit"), { recursive: true, force: true }));
      progress("sandbox: starting the sandbox process (as npm run sandbox) and Prism (as npm run mock)");
      sandbox = await startSandboxCommand(repoRoot, npmRunSandbox);
      const prismStarted = performance.now();
      prism = await startPrism();
      const prismStartupMs = performance.now() - prismStarted;

      const sides = await seededSides(sandbox, prism, concurrency);
      agents.push(sides.sandbox.target.agent, sides.prism.target.agent);
      // Each answers each operation as the contract says before anything is timed (load checks every status),
      // and the JIT has seen each operation before its first timed round.
      const warmUp = size === "tiny" ? 30 : 500;
      for (const side of Object.values(sides)) await load(side.target, side.operations, warmUp, concurrency);

      const findings: Findings = { figures: [], ratios: [], notes: [] };
      await measureThroughput(sides, rounds, requestsPerRound, concurrency, progress, findings);

      addStartUps(sourceStartupMs, builtStartupMs, prismStartupMs, findings);

      await measureMemory(sides, memoryRequests, concurrency, progress, findings);
      if (sourceStartupMs > TARGET_STARTUP_MS && builtStartupMs <= TARGET_STARTUP_MS) {
        findings.notes.push(
          `\`npm run sandbox\` started in ${Math.round(sourceStartupMs)} ms against ${Math.round(builtStartupMs)} ms for the built command: the difference is node reading the TypeScript sources and stripping their types at start, which the published \`partner-api sandbox\` does not do.`,
        );
      }
      findings.notes.push(
        "Each POST /v1/cards schedules that card's activation 10 s of sandbox time later, so from 10 s into the run the sandbox also activates the cards created earlier while it answers; the POST figures include that work.",
        "The sandbox keeps what it is told: every POST /v1/cards creates a card, so its memory includes the cards created during the run; Prism keeps nothing.",
        "The load runs against `npm run sandbox` (TypeScript, its types stripped by node); start-up is measured for it and for the built `partner-api sandbox` that partners run (plain JavaScript, bundled by devkit/scripts/build.ts into .tmp/bench-devkit), whose start-up has one bundled file to read.",
      );
      return {
        name: this.name,
        title: this.title,
        method:
          "The sandbox in its own process (`node --conditions=partner-api-source scripts/sandbox.ts --port 0 --seed 1`, what `npm run sandbox` runs) and " +
          `Prism ${prismVersion()} through \`startPrism()\` (what \`npm run mock\` runs), both validating requests against the contract. ` +
          `Load from this process over keep-alive loopback connections, ${concurrency} at a time, ${requestsPerRound} requests per round, ` +
          `${rounds} alternating round(s) per operation; figures are medians over rounds (p99 per round, then the median). ` +
          "Start-up: from spawning the process to its first answer (the sandbox) or its first accepted connection (Prism). " +
          "Memory: VmRSS / VmHWM from /proc/<pid>/status of each server process.",
        ...findings,
      };
    } finally {
      for (const agent of agents) agent.destroy();
      await sandbox?.process.stop("SIGTERM");
      await prism?.stop();
    }
  },
};
