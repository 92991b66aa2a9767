/**
 * Every code sample of the reference, run exactly as displayed (nothing swapped): each operation's request in every
 * language of SAMPLE_RUNTIMES against a live sandbox (a fresh account per language: every new account holds what
 * the contract's examples name) and against the mock as `npm run mock` serves it (Prism behind its front), each
 * behind a recording proxy, with only the base URL and the key set; each sample compiled once for both. A sample
 * passes when it sent the request the contract's examples describe (method, path, query, key, company, body), got
 * a status the contract declares, and printed what the answer holds. Each webhook page's sample, per language, runs
 * on its event's example delivery and on variants of it (printing what `webhookLines` says a receiver of that event
 * does) and refuses hostile signatures with exit 1, never a crash.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockFront, startMockFront } from "../../devkit/src/mock-front.ts";
import { type PrismServer, startPrism } from "../../devkit/src/prism.ts";
import { requestTarget, webhookLines } from "../../scripts/lib/docs/languages/common.ts";
import { missingForRuntime, SAMPLE_RUNTIMES, type SampleRuntime } from "../../scripts/lib/docs/sample-runtimes.ts";
import {
  type OperationExample,
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

/**
 * Java's single-file launch compiles the sample in memory on every run, loading javac's classes each time. A class
 * data sharing archive of those classes (JDK 17's dynamic archive, dumped once by a warm-up program launched the
 * same way) lets every later launch map them instead: about a third less CPU a run here (1.4 s to 0.9 s). The
 * sample, its launch and its output are the same; without the archive (none made) a run is only slower.
 */
const JAVA_WARM_UP = `import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class WarmUp {
    public static void main(String[] args) throws Exception {
        HttpClient.newHttpClient();
        HttpRequest.newBuilder(URI.create("http://127.0.0.1/")).header("X-Api-Key", "k").GET().build();
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(new byte[] { 1 }, "HmacSHA256"));
        System.out.println(HexFormat.of().formatHex(mac.doFinal(new ObjectMapper().writeValueAsBytes(args))));
    }
}
`;
let javaArchive: string | undefined;
async function makeJavaArchive(runtime: SampleRuntime): Promise<void> {
  if (missingForRuntime(runtime).length > 0) return;
  const folder = path.join(outRoot, "java-class-data");
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const archive = path.join(folder, "samples.jsa");
  writeFileSync(path.join(folder, "WarmUp.java"), JAVA_WARM_UP);
  const step = runtime.run(path.join(folder, "WarmUp.java"), [], repoRoot);
  const made = await runCommand(
    step.command,
    [`-XX:ArchiveClassesAtExit=${archive}`, ...step.args],
    folder,
    process.env,
    "",
  );
  if (made.status === 0 && existsSync(archive)) javaArchive = archive;
  else console.warn(`[samples] no Java class data archive (exit ${made.status}): ${made.stderr.slice(-500)}`);
}

/** A runtime's command for one run, Java's with the class data archive when there is one. */
function runStep(runtime: SampleRuntime, file: string, args: string[]) {
  const step = runtime.run(file, args, repoRoot);
  return runtime.label === "Java" && javaArchive
    ? { ...step, args: [`-XX:SharedArchiveFile=${javaArchive}`, ...step.args] }
    : step;
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
      const step = runStep(runtime, file, options.args ?? []);
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
let prism: PrismServer;
let mock: MockFront;
beforeAll(async () => {
  // The mock as `npm run mock` serves it: Prism behind the front that words its refusals (devkit/src/mock-front.ts).
  [live, prism, mock] = await Promise.all([
    startLiveSandbox(),
    startPrism({ document: bundleJsonPath }),
    startMockFront("127.0.0.1", 0, document),
    makeJavaArchive(SAMPLE_RUNTIMES.find((runtime) => runtime.label === "Java")!),
  ]);
  mock.forwardTo(prism.port);
}, 60_000);
afterAll(async () => {
  await Promise.all([live?.sandbox.stop(), mock?.close(), prism?.stop()]);
});

/**
 * Each operation's sample, written and compiled once, run against both targets: the displayed text is the same,
 * so a compiled language compiles it once.
 */
const preparedOperations = new Map<string, Promise<Prepared>>();
function preparedOperation(language: SampleLanguage, runtime: SampleRuntime, operation: OperationExample) {
  const key = `${language.label} ${operation.operationId}`;
  let prepared = preparedOperations.get(key);
  if (!prepared) {
    prepared = prepareSample(language, runtime, operation.operationId, language.request(operation));
    preparedOperations.set(key, prepared);
  }
  return prepared;
}

/** Where the samples run: a sandbox (a fresh account per language) and the mock (`npm run mock`: Prism). */
const TARGETS = [
  { name: "the sandbox", url: () => live.url },
  { name: "the mock", url: () => mock.url },
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
          const prepared = await preparedOperation(language, runtime, operation);
          const before = proxy.exchanges.length;
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

/** Other deliveries of an event than its example, to take each branch of its handling (every field may be absent). */
function variants(type: string, body: string): string[] {
  const event = JSON.parse(body);
  const changed = (change: (payload: any) => void) => {
    const copy = structuredClone(event);
    change(copy.payload);
    return JSON.stringify(copy);
  };
  switch (type) {
    case "company.kyc_link.issued":
      return [changed((payload) => (payload.tosAccepted = true)), changed((payload) => delete payload.tosAccepted)];
    case "company.kyc_status_changed":
      return [changed((payload) => (payload.kycStatus = "rejected")), changed((payload) => delete payload.kycStatus)];
    case "payment_route.transaction.created":
      return [
        changed((payload) => {
          payload.data = { routeId: payload.data.routeId, routeType: "onramp", senderName: "Acme Robotics Inc." };
          payload.data.incomingAmount = "250.00";
          payload.data.convertedAmount = "249.50";
        }),
        changed((payload) => delete payload.data.routeType),
        changed((payload) => delete payload.data),
      ];
    case "payment_route.created":
      return [changed((payload) => delete payload.paymentRoute)];
    default:
      return [];
  }
}

const sign = (body: string) => createHmac("sha256", SECRET).update(body).digest("hex");

/** Hostile signatures: each refused as invalid (a receiver's 401), never a crash (a 500). */
function hostile(body: string): Array<[name: string, signature: string | undefined, input: string]> {
  const digest = sign(body);
  const flipped = digest.slice(0, -1) + (digest.endsWith("0") ? "1" : "0");
  return [
    ["wrong-digest", flipped, body],
    ["short-digest", digest.slice(0, 32), body],
    ["long-digest", `${digest}00`, body],
    ["changed-body", digest, `${body} `],
    ["non-ascii", "é".repeat(64), body],
    ["non-ascii-same-bytes", "é".repeat(32), body],
    ["emoji", `${digest.slice(0, 62)}🔑`, body],
    ["empty", "", body],
    ["missing", undefined, body],
  ];
}

describe.concurrent("the webhook pages' samples", () => {
  const events = webhookExamples(document);

  for (const runtime of SAMPLE_RUNTIMES.filter((candidate) => candidate.label !== "curl")) {
    const language = SAMPLE_LANGUAGES.find((candidate) => candidate.label === runtime.label)!;
    it(`${runtime.label}: each event's sample verifies the raw bytes, handles its data and refuses every hostile signature`, async () => {
      expect(missingForRuntime(runtime), runtime.label).toEqual([]);
      const sources = events.map((event) => language.webhook(event));
      // Each event's own sample: no two pages show the same text.
      expect(new Set(sources).size, runtime.label).toBe(events.length);
      const env = { PARTNER_WEBHOOK_SECRET: SECRET };
      for (const [index, event] of events.entries()) {
        const prepared = await prepareSample(language, runtime, `webhook-${event.type}`, sources[index]!);
        expect(prepared.failed?.stderr, `${runtime.label} ${event.type}`).toBeUndefined();
        if (runtime.label === "Go") {
          const gofmt = spawnSync("gofmt", ["-l", prepared.file], { encoding: "utf8" });
          expect(`${gofmt.stdout}${gofmt.stderr}`, `${event.type}: gofmt`).toBe("");
        }
        // The known-answer vector where it is this event's example; every delivery signed, one in upper case.
        if (event.body === BODY) expect(sign(BODY)).toBe(BODY_DIGEST);
        for (const [turn, body] of [event.body, ...variants(event.type, event.body)].entries()) {
          const signature = turn === 1 ? sign(body).toUpperCase() : sign(body);
          const good = await prepared.run({ args: [signature], env, input: body });
          const where = `${runtime.label} ${event.type} delivery ${turn}: exit ${good.status}, stderr ${good.stderr}`;
          expect(good.status, where).toBe(0);
          // Lines compared without trailing spaces (an absent last field prints empty).
          const lines = (text: string[]) => text.map((line) => line.trimEnd());
          expect(lines(good.stdout.trimEnd().split("\n")), where).toEqual(lines(webhookLines(body)));
        }
        // Every hostile signature on the first page (the check is the same text on every page); on the others, a
        // mismatch and the non-ASCII signature that crashes a careless comparison.
        const attacks = hostile(event.body).filter(
          ([name]) => index === 0 || ["wrong-digest", "non-ascii"].includes(name),
        );
        for (const [name, signature, input] of attacks) {
          const bad = await prepared.run({ args: signature === undefined ? [] : [signature], env, input });
          const where = `${runtime.label} ${event.type} ${name}: exit ${bad.status}, stderr ${bad.stderr}`;
          expect(bad.status, where).toBe(1);
          expect(bad.stdout.trim(), where).toBe("");
          expect(bad.stderr.trim(), where).toMatch(/invalid signature$/);
          expect(bad.stderr, where).not.toMatch(/Traceback|Exception|panic:|TypeError|\bat .+:\d+/);
        }
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
