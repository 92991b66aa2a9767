/**
 * Mock: requests per second and p99 latency of Prism (as `npm run mock` starts it, through `startPrism()`)
 * on a GET, a validated POST and a failing POST, against a bare `node:http` server answering the same bytes,
 * each in its own process; and Prism's memory before and after 10,000 requests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type PrismServer, prismVersion, startPrism } from "../devkit/src/prism.ts";
import { SOURCE_NODE_ARGS } from "../scripts/lib/source.ts";
import type { RecordedResponse } from "./bare-server.ts";
import type { Benchmark } from "./context.ts";
import { median, percentile, roundOrder } from "./harness.ts";
import type { Figure, Ratio } from "./results.ts";

const COMPANY_ID = "01JD8X4M6Q2V7R9T3W5Y0Z1A2B";
const HEADERS = { "X-API-Key": "bench-api-key", "X-Company-Id": COMPANY_ID, "Content-Type": "application/json" };

export interface MockOperation {
  name: string;
  method: string;
  url: string;
  body: string;
  expectedStatus: number;
  /** Sent instead of the mock's own headers (the sandbox needs the id of a company it holds). */
  headers?: Record<string, string>;
}

const MOCK_OPERATIONS: MockOperation[] = [
  { name: "GET /v1/cards", method: "GET", url: "/v1/cards?page=1&limit=20", body: "", expectedStatus: 200 },
  {
    name: "POST /v1/cards (valid body, 201)",
    method: "POST",
    url: "/v1/cards",
    body: JSON.stringify({
      cardHolderId: "01JD8X5H3J7K9M1N3P5Q7R9S1T",
      name: "Travel - Ana Silva",
      category: "TravelExpenses",
      bin: "45717360",
    }),
    expectedStatus: 201,
  },
  {
    name: "POST /v1/cards (invalid body, 422)",
    method: "POST",
    url: "/v1/cards",
    body: JSON.stringify({ name: 5, category: "Lunch" }),
    expectedStatus: 422,
  },
];

// Headers Node's http server writes itself; everything else Prism sent is replayed.
const HOP_HEADERS = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);

export interface Target {
  port: number;
  agent: Agent;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  ms: number;
}

export function send(target: Target, operation: MockOperation): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: target.port,
        method: operation.method,
        path: operation.url,
        headers: operation.headers ?? HEADERS,
        agent: target.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers))
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
          resolve({
            status: res.statusCode ?? 0,
            headers,
            body: Buffer.concat(chunks).toString("utf8"),
            ms: performance.now() - started,
          });
        });
        res.on("error", reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`${operation.name}: no answer within 10 s`)));
    req.on("error", reject);
    req.end(operation.body || undefined);
  });
}

/** Sends `count` requests, `concurrency` at a time, cycling through `operations`; latencies in ms and requests/s. */
export async function load(
  target: Target,
  operations: MockOperation[],
  count: number,
  concurrency: number,
): Promise<{ latencies: number[]; perSecond: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const operation = operations[next++ % operations.length]!;
      const answer = await send(target, operation);
      if (answer.status !== operation.expectedStatus) {
        throw new Error(
          `${operation.name}: expected status ${operation.expectedStatus}, got ${answer.status}: ${answer.body.slice(0, 200)}`,
        );
      }
      latencies.push(answer.ms);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { latencies, perSecond: (count * 1000) / (performance.now() - started) };
}

/** Resident and peak memory of a process, in MiB, from /proc/<pid>/status (Linux). */
export function processMemoryMiB(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * Each operation's answer from `target`, as the bare server replays it (status, headers but those Node writes
 * itself, body); `wrong` names an answer whose status is not the expected one, which stops the benchmark.
 */
export async function recordAnswers(
  target: Target,
  operations: readonly MockOperation[],
  wrong: (operation: MockOperation, answer: Answer) => string,
): Promise<RecordedResponse[]> {
  const recordings: RecordedResponse[] = [];
  for (const operation of operations) {
    const answer = await send(target, operation);
    if (answer.status !== operation.expectedStatus) throw new Error(wrong(operation, answer));
    const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_HEADERS.has(name)));
    recordings.push({
      method: operation.method,
      url: operation.url,
      requestBody: operation.body,
      status: answer.status,
      headers,
      body: answer.body,
    });
  }
  return recordings;
}

/** The bare `node:http` server (bench/bare-server.ts) in its own process, replaying `recordings`. */
export async function startBareServer(recordings: RecordedResponse[]): Promise<{ port: number; child: ChildProcess }> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "bare-server.ts");
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, script], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.stdin!.end(JSON.stringify(recordings));
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(
      () => reject(new Error(`the bare server did not start within 20 s: ${stderr.trim()}`)),
      20_000,
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /listening (\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the bare server exited (code ${code}) before listening: ${stderr.trim()}`));
    });
  });
  return { port, child };
}

export const mockBenchmark: Benchmark = {
  name: "mock",
  title: "Mock server",
  async run({ size, progress }) {
    const requestsPerRound = size === "full" ? 2_000 : size === "quick" ? 500 : 20;
    const rounds = size === "full" ? 5 : size === "quick" ? 3 : 1;
    const memoryRequests = size === "tiny" ? 60 : 10_000;
    const concurrency = 8;
    let prism: PrismServer | undefined;
    let bare: ChildProcess | undefined;
    const agents: Agent[] = [];
    try {
      progress("mock: starting Prism (startPrism, as npm run mock does)");
      prism = await startPrism();
      const prismTarget: Target = { port: prism.port, agent: new Agent({ keepAlive: true, maxSockets: concurrency }) };
      agents.push(prismTarget.agent);
      // Record Prism's answers, then check them: a mock that answers wrongly fast proves nothing.
      const recordings = await recordAnswers(
        prismTarget,
        MOCK_OPERATIONS,
        (operation, answer) =>
          `mock: Prism answered ${operation.name} with ${answer.status}, expected ${operation.expectedStatus}: ${answer.body.slice(0, 200)}`,
      );
      const server = await startBareServer(recordings);
      bare = server.child;
      const bareTarget: Target = { port: server.port, agent: new Agent({ keepAlive: true, maxSockets: concurrency }) };
      agents.push(bareTarget.agent);
      for (const [index, operation] of MOCK_OPERATIONS.entries()) {
        const answer = await send(bareTarget, operation);
        const recorded = recordings[index]!;
        if (answer.status !== recorded.status || answer.body !== recorded.body)
          throw new Error(`mock: the bare server does not replay ${operation.name}`);
      }

      // Memory: after start-up and one request of each kind, then after `memoryRequests` more.
      await load(prismTarget, MOCK_OPERATIONS, 30, concurrency);
      const before = processMemoryMiB(prism.pid);
      progress(`mock: ${memoryRequests} requests to Prism for its memory`);
      const memoryRun = await load(prismTarget, MOCK_OPERATIONS, memoryRequests, concurrency);
      const after = processMemoryMiB(prism.pid);

      const figures: Figure[] = [];
      const ratios: Ratio[] = [];
      for (const operation of MOCK_OPERATIONS) {
        const samples = {
          prism: { rps: [] as number[], p99: [] as number[] },
          bare: { rps: [] as number[], p99: [] as number[] },
        };
        await load(bareTarget, [operation], Math.min(50, requestsPerRound), concurrency); // warm-up
        for (let round = 0; round < rounds; round++) {
          for (const side of roundOrder(["prism", "bare"] as const, round)) {
            const run = await load(
              side === "prism" ? prismTarget : bareTarget,
              [operation],
              requestsPerRound,
              concurrency,
            );
            samples[side].rps.push(run.perSecond);
            samples[side].p99.push(percentile(run.latencies, 99));
          }
          progress(`mock ${operation.name}: round ${round + 1}/${rounds}`);
        }
        const prismRps = median(samples.prism.rps);
        const bareRps = median(samples.bare.rps);
        figures.push(
          { label: `Prism, ${operation.name}`, value: prismRps, unit: "requests/s" },
          { label: `bare node:http, ${operation.name}`, value: bareRps, unit: "requests/s" },
          { label: `Prism p99 latency, ${operation.name}`, value: median(samples.prism.p99), unit: "ms" },
          { label: `bare node:http p99 latency, ${operation.name}`, value: median(samples.bare.p99), unit: "ms" },
        );
        ratios.push({ label: `Prism ÷ bare requests/s, ${operation.name}`, value: prismRps / bareRps });
      }
      const notes: string[] = [];
      if (before && after) {
        figures.push(
          { label: "Prism RSS after start-up (and 30 warm-up requests)", value: before.rss, unit: "MiB" },
          {
            label: `Prism RSS after ${memoryRequests.toLocaleString("en-US")} more requests`,
            value: after.rss,
            unit: "MiB",
          },
          { label: "Prism peak RSS (VmHWM) by then", value: after.peak, unit: "MiB" },
          {
            label: `Prism, mixed load of ${memoryRequests.toLocaleString("en-US")} requests`,
            value: memoryRun.perSecond,
            unit: "requests/s",
          },
        );
        ratios.push({
          label: `Prism RSS after ÷ before ${memoryRequests.toLocaleString("en-US")} requests`,
          value: after.rss / before.rss,
        });
      } else {
        notes.push("Prism's memory not measured: /proc/<pid>/status is not readable on this system.");
      }
      notes.push(
        "Prism answers from the contract after validating each request against it; the bare server only replays its bytes, so the ratio is the price of that validation and routing, not a defect.",
      );
      return {
        name: this.name,
        title: this.title,
        method:
          `Prism ${prismVersion()} started by \`startPrism()\` (devkit/src/prism.ts, what \`npm run mock\` runs) and a bare \`node:http\` server ` +
          `(bench/bare-server.ts, its own process) replaying Prism's recorded status, headers and body for the same requests. ` +
          `Load from this process over keep-alive loopback connections, ${concurrency} at a time, ${requestsPerRound} requests per ` +
          `round, ${rounds} alternating round(s) per operation; figures are medians over rounds (p99 per round, then the median). ` +
          `Memory: VmRSS / VmHWM from /proc/<pid>/status of the Prism process.`,
        figures,
        ratios,
        notes,
      };
    } finally {
      for (const agent of agents) agent.destroy();
      bare?.kill("SIGKILL");
      await prism?.stop();
    }
  },
};
