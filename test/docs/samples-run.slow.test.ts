/**
 * Every code sample of the reference, run exactly as displayed (nothing swapped): each operation's request in every
 * language of SAMPLE_RUNTIMES against a live sandbox (a fresh account per language: every new account holds what
 * the contract's examples name) and against the mock (Prism), each behind a recording proxy, with only the base URL
 * and the key set; and each webhook page's signature check against the known-answer vector and hostile signatures. A sample passes when it sent the request the contract's examples describe (method, path,
 * query, key, company, body), got a status the contract declares, and printed what the answer holds.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PrismServer, startPrism } from "../../devkit/src/prism.ts";
import { requestTarget } from "../../scripts/lib/docs/languages/common.ts";
import { missingForRuntime, SAMPLE_RUNTIMES, type SampleRuntime } from "../../scripts/lib/docs/sample-runtimes.ts";
import {
  operationExamples,
  type ResultRead,
  SAMPLE_LANGUAGES,
  type SampleLanguage,
  webhookExamples,
} from "../../scripts/lib/docs/samples.ts";
import { bundleJsonPath, repoRoot } from "../../scripts/lib/paths.ts";
import { startReceiver } from "../../scripts/lib/receiver.ts";
import { verifyWebhookSignature } from "../../src/index.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { BODY, BODY_DIGEST, SECRET } from "../webhooks/known-answers.ts";
import {
  type LiveSandbox,
  type RecordingProxy,
  startLiveSandbox,
  startRecordingProxy,
} from "./support/live-sandbox.ts";

const document = loadDocument();
const operations = operationExamples(document);
const outRoot = path.join(repoRoot, "test-output", "samples");

/** At most two samples run at once: Java, Go and C# compile first, on a 2-core machine. */
let running = 0;
const waiting: Array<() => void> = [];
async function slot<T>(work: () => Promise<T> | T): Promise<T> {
  if (running >= 2) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one command to its end; asynchronous, as the proxy and the receiver answer from this process. */
function runCommand(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, input: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ status: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ status: code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

interface Prepared {
  file: string;
  /** The compile step's failure, when it failed. */
  failed?: Run;
  run(options?: { args?: string[]; env?: NodeJS.ProcessEnv; input?: string }): Promise<Run>;
}

/** Writes `source` as the language's file in its own folder and compiles it where the language compiles. */
async function prepareSample(
  language: SampleLanguage,
  runtime: SampleRuntime,
  name: string,
  source: string,
): Promise<Prepared> {
  const folder = path.join(outRoot, language.file.replace(/\W/g, "-"), name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, language.file);
  writeFileSync(file, source);
  const environment = { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "", NO_COLOR: "1" };
  const build = runtime.build?.(file);
  const built = build ? await slot(() => runCommand(build.command, build.args, folder, environment, "")) : undefined;
  return {
    file,
    ...(built && built.status !== 0 ? { failed: built } : {}),
    run: async (options = {}) => {
      if (built && built.status !== 0) return built;
      const step = runtime.run(file, options.args ?? [], repoRoot);
      return slot(() =>
        runCommand(step.command, step.args, folder, { ...environment, ...options.env }, options.input ?? ""),
      );
    },
  };
}

function valueAt(value: unknown, keys: string[]): unknown {
  return keys.reduce<unknown>(
    (current, key) =>
      current !== null && typeof current === "object" ? (current as Record<string, unknown>)[key] : undefined,
    value,
  );
}

/** The lines a sample must print for this answer body (after the status line). */
function expectedLines(result: ResultRead, body: unknown, where: string): string[] {
  const line = (object: unknown) =>
    result.fields
      .map((keys) => {
        const value = valueAt(object, keys);
        if (typeof value !== "string")
          throw new Error(`${where}: the sandbox's answer has no string ${keys.join(".")}`);
        return value;
      })
      .join(" ");
  if (result.fields.length === 0) return [];
  if (result.at === undefined) return [line(body)];
  const at = valueAt(body, [result.at]);
  if (result.list) return (Array.isArray(at) ? at : []).map(line);
  return [line(at)];
}

let live: LiveSandbox;
let mock: PrismServer;
beforeAll(async () => {
  [live, mock] = await Promise.all([startLiveSandbox(), startPrism({ document: bundleJsonPath })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([live?.sandbox.stop(), mock?.stop()]);
});

/** Where the samples run: a sandbox (a fresh account per language) and the mock (`npm run mock`: Prism). */
const TARGETS = [
  { name: "the sandbox", folder: "sandbox", url: () => live.url },
  { name: "the mock", folder: "mock", url: () => mock.url },
] as const;

describe.concurrent.each(TARGETS)("the operations' samples, run as displayed against $name", (target) => {
  for (const runtime of SAMPLE_RUNTIMES) {
    const language = SAMPLE_LANGUAGES.find((candidate) => candidate.label === runtime.label)!;
    it(`${runtime.label}: every operation sends the documented request and prints the answer`, async () => {
      const missing = missingForRuntime(runtime);
      if (missing.length > 0)
        throw new Error(
          `${runtime.label} samples are listed as executed but ${missing.join(", ")} is missing: apt-get install -y ${runtime.debianPackages.join(" ")}`,
        );
      expect(language, runtime.label).toBeDefined();
      // A fresh account per language: the samples run as displayed, with only the base URL and a new key set.
      const apiKey = `sk_test_docs_${runtime.label.replace(/\W/g, "")}`;
      const proxy: RecordingProxy = await startRecordingProxy(target.url());
      try {
        for (const operation of operations) {
          const where = `${runtime.label} ${operation.operationId}`;
          const source = language.request(operation);
          const before = proxy.exchanges.length;
          const prepared = await prepareSample(language, runtime, `${target.folder}-${operation.operationId}`, source);
          const run = await prepared.run({ env: { PARTNER_API_BASE_URL: proxy.url, PARTNER_API_KEY: apiKey } });
          const exchanges = proxy.exchanges.slice(before);
          expect(run.status, `${where} exited ${run.status}: ${run.stderr}\n${run.stdout}`).toBe(0);
          expect(exchanges, `${where}: requests sent`).toHaveLength(1);
          const [exchange] = exchanges as [(typeof exchanges)[0]];
          expect(`${exchange.method} ${exchange.url}`, where).toBe(
            `${operation.method.toUpperCase()} ${requestTarget(operation)}`,
          );
          expect(exchange.headers["x-api-key"], where).toBe(apiKey);
          expect(exchange.headers["x-company-id"], where).toBe(operation.companyId);
          if (operation.body) {
            expect(exchange.headers["content-type"], where).toMatch(/^application\/json\b/);
            expect(JSON.parse(exchange.requestBody), where).toEqual(operation.body.value);
          } else {
            expect(exchange.requestBody, where).toBe("");
          }
          expect(operation.result.statuses, `${where} got ${exchange.status}: ${exchange.responseBody}`).toContain(
            exchange.status,
          );
          if (runtime.label === "curl") {
            expect(run.stdout, where).toBe(exchange.responseBody);
          } else {
            const expected = [
              String(exchange.status),
              ...expectedLines(operation.result, JSON.parse(exchange.responseBody), where),
            ];
            expect(run.stdout.trimEnd().split("\n"), where).toEqual(expected);
          }
          if (runtime.label === "Go") {
            const gofmt = spawnSync("gofmt", ["-l", prepared.file], { encoding: "utf8" });
            expect(`${gofmt.stdout}${gofmt.stderr}`, `${where}: gofmt`).toBe("");
          }
        }
      } finally {
        await proxy.close();
      }
    }, 1_800_000);
  }
});

describe.concurrent("the webhook pages' samples", () => {
  const events = webhookExamples(document);
  const knownEvent = JSON.parse(BODY) as { type: string; id: string };

  for (const runtime of SAMPLE_RUNTIMES.filter((candidate) => candidate.label !== "curl")) {
    const language = SAMPLE_LANGUAGES.find((candidate) => candidate.label === runtime.label)!;
    it(`${runtime.label}: verifies the known-answer signature and refuses every hostile one, never crashing`, async () => {
      expect(missingForRuntime(runtime), runtime.label).toEqual([]);
      // The verification is the same program on every webhook page.
      const sources = new Set(events.map((event) => language.webhook(event)));
      expect(sources.size, runtime.label).toBe(1);
      const [source] = sources as unknown as [string];
      const env = { PARTNER_WEBHOOK_SECRET: SECRET };
      const prepared = await prepareSample(language, runtime, "webhook", source);
      expect(prepared.failed?.stderr, runtime.label).toBeUndefined();
      const verify = (_name: string, signature: string, input = BODY) =>
        prepared.run({ args: [signature], env, input });
      const good = await verify("good", BODY_DIGEST);
      expect(good.status, `${good.stderr}`).toBe(0);
      expect(good.stdout.trim()).toBe(`${knownEvent.type} ${knownEvent.id}`);
      const upper = await verify("upper", BODY_DIGEST.toUpperCase());
      expect(upper.stdout.trim(), upper.stderr).toBe(`${knownEvent.type} ${knownEvent.id}`);
      const flipped = BODY_DIGEST.slice(0, -1) + (BODY_DIGEST.endsWith("0") ? "1" : "0");
      // Hostile signatures: each is refused as invalid (a receiver's 401), never a crash (a 500).
      for (const [name, signature, input] of [
        ["wrong-digest", flipped, BODY],
        ["short-digest", BODY_DIGEST.slice(0, 32), BODY],
        ["long-digest", `${BODY_DIGEST}00`, BODY],
        ["changed-body", BODY_DIGEST, BODY.replace("approved", "rejected")],
        ["non-ascii", "é".repeat(64), BODY],
        ["non-ascii-same-bytes", "é".repeat(32), BODY],
        ["emoji", `${BODY_DIGEST.slice(0, 62)}🔑`, BODY],
        ["empty", "", BODY],
        ["missing", undefined, BODY],
      ] as const) {
        const bad = await prepared.run({ args: signature === undefined ? [] : [signature], env, input });
        const where = `${runtime.label} ${name}: exit ${bad.status}, stderr ${bad.stderr}`;
        expect(bad.status, where).toBe(1);
        expect(bad.stdout.trim(), where).toBe("");
        expect(bad.stderr.trim(), where).toMatch(/invalid signature$/);
        expect(bad.stderr, where).not.toMatch(/Traceback|Exception|panic:|TypeError|\bat .+:\d+/);
      }
    }, 900_000);
  }

  it("curl: each webhook page's signed delivery verifies with the webhook kit", async () => {
    const runtime = SAMPLE_RUNTIMES.find((candidate) => candidate.label === "curl")!;
    const language = SAMPLE_LANGUAGES.find((candidate) => candidate.label === "curl")!;
    expect(missingForRuntime(runtime)).toEqual([]);
    const receiver = await startReceiver([204]);
    try {
      expect(events).toHaveLength(6);
      for (const event of events) {
        const prepared = await prepareSample(language, runtime, `webhook-${event.type}`, language.webhook(event));
        const run = await prepared.run({ env: { PARTNER_WEBHOOK_SECRET: SECRET, RECEIVER_URL: receiver.url } });
        expect(run.status, run.stderr).toBe(0);
        const delivery = receiver.deliveries.at(-1)!;
        expect(delivery.body, event.type).toBe(event.body);
        expect(verifyWebhookSignature(delivery.body, delivery.signature, SECRET), event.type).toBe(true);
        expect(verifyWebhookSignature(delivery.body, delivery.signature, `${SECRET}x`), event.type).toBe(false);
      }
      expect(receiver.deliveries).toHaveLength(6);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
