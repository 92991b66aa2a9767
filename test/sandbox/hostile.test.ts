/**
 * The sandbox under hostile input, in process: a seeded barrage of malformed, huge, deep and odd requests (bad
 * JSON, wrong content types, huge headers, Object.prototype member names as keys and ids, deep bodies, long
 * strings, odd methods, path traversal, unicode, bad query values, the control API and the hosted pages too),
 * a few at a time. Every request is answered, none with a 5xx, the sandbox still works afterwards, and its
 * memory is back near where it started once reset. The same seed sends the same requests, run after run.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import net from "node:net";
import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, sandboxRouter, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { seededRandom } from "../helpers/random.ts";
import { clientFor, ONBOARD_BODY, seededCompany } from "./support.ts";

/** Another seed sends another barrage: HOSTILE_SEED=7 npx vitest run test/sandbox/hostile.test.ts */
const SEED = Number(process.env.HOSTILE_SEED ?? 20_261_125);
const REQUESTS = 1_200;
const CONCURRENCY = 8;
/** Only so that a request the sandbox never answers fails naming itself. */
const NO_ANSWER_MS = 5_000;

const PROTO_NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"])];
const ODD_TEXT = [
  ...PROTO_NAMES,
  "",
  " ",
  "null",
  "undefined",
  "NaN",
  "-1",
  "0",
  "1e309",
  "99999999999999999999999",
  "01JD8X9N4E2R6T8V0W2Y4Z6A8C",
  "00000000000000000000000000",
  "ZZZZZZZZZZZZZZZZZZZZZZZZZZ",
  "acct_000000000000",
  "../../etc/passwd",
  "..%2f..%2fetc%2fpasswd",
  "%00",
  "%",
  "%E0%A4%A",
  "😀👩‍👩‍👧‍👦",
  "\u202eevil",
  "Ω≈ç√∫",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a scenario placeholder sent as data
  "${company.id}",
  "a".repeat(300),
];

interface Shot {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Sent as raw bytes on a socket (a request line or header the client would refuse to send). */
  raw?: string;
}

/** Paths that climb out, escape or decode to nothing. */
const ODD_PATHS = [
  "/../../../../etc/passwd",
  "/v1/../../package.json",
  "/_dashboard/../../package.json",
  "/_dashboard/%2e%2e/%2e%2e/package.json",
  "/_dashboard/..%5c..%5cpackage.json",
  "//evil.example/v1/companies",
  "/v1/companies/..;/cards",
  "/v1/%63ompanies",
  "/v1/companies%00",
  "/%",
  "/_sandbox/%E0%A4%A",
  "/_sandbox/accounts/..%2f..%2f",
  `/${"a/".repeat(2_000)}`,
  "/😀",
  "/_dashboard/",
  "/",
];

/** Requests sent as raw bytes: a request line or header the client would refuse to send. */
const RAW_REQUESTS = [
  "GET /v1/companies HTTP/1.1\r\nHost: x\r\nX-API-Key: a\u0000b\r\n\r\n",
  "GET /v1/companies HTTP/9.9\r\nHost: x\r\n\r\n",
  "GET\r\n\r\n",
  "POST /v1/companies HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
  "POST /v1/companies HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
  "GET /v1/companies HTTP/1.1\r\nHost: x\r\nX-API-Key: hostile-raw\r\n\r\n",
  "POST /v1/companies HTTP/1.1\r\nHost: x\r\nX-API-Key: hostile-raw\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
  "GET /v1/companies?\u00ff HTTP/1.1\r\nHost: x\r\n\r\n",
];

/** The barrage: the operations of both contracts, each called badly in one of many ways. */
function barrage(seed: number, count: number, companyId: string): Shot[] {
  const random = seededRandom(seed);
  const { int, pick, next } = random;
  const operations = sandboxRouter().operations;
  const deep = (depth: number) =>
    next() < 0.5 ? "[".repeat(depth) + "]".repeat(depth) : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  const oddText = () => (next() < 0.1 ? "x".repeat(4_000 + int(60_000)) : pick(ODD_TEXT));
  const oddValue = (): unknown =>
    pick<() => unknown>([
      () => oddText(),
      () => int(2) === 0,
      () => null,
      () => -1,
      () => 1e308,
      () => [],
      () => ({}),
      () => [oddText()],
      () => Object.fromEntries([[pick(PROTO_NAMES), oddText()]]),
    ])();
  const oddObject = (): string => {
    const entries: string[] = [];
    for (let i = int(6); i >= 0; i--)
      entries.push(
        `${JSON.stringify(pick(PROTO_NAMES.concat(["name", "seconds", "to", "status", "url", "chain", "currency", "cardHolderId", "bin", "action"])))}:${JSON.stringify(oddValue())}`,
      );
    return `{${entries.join(",")}}`;
  };
  const bodies: (() => string | Buffer)[] = [
    () => '{"name": "unterminated',
    () => "{".repeat(1 + int(10)),
    () => "not json at all",
    () => "",
    () => "null",
    () => "[]",
    () => "1",
    () => '"\\ud800"',
    () => `{"name":"\\ud800\\udc00\\u0000"}`,
    () => Buffer.from([0xff, 0xfe, 0xfd, 0x00, 0x7b]),
    () => deep(65 + int(5_000)),
    () => oddObject(),
    () => JSON.stringify({ ...ONBOARD_BODY, name: "x".repeat(4_097 + int(200_000)) }),
    () => JSON.stringify({ ...ONBOARD_BODY, [pick(PROTO_NAMES)]: { polluted: true } }),
    () => JSON.stringify({ seconds: pick([-1, 1e308, 31_536_001, "60", null, 0.5]) }),
    () =>
      JSON.stringify({
        to: pick(["+275760-09-13T00:00:00.000Z", "9999-12-31T23:59:60Z", "tomorrow", "1969-01-01T00:00:00Z"]),
      }),
    () => `accept=${encodeURIComponent(oddText())}&${pick(PROTO_NAMES)}=1`,
  ];
  const contentTypes = [
    "application/json",
    "application/json; charset=utf-16",
    "APPLICATION/JSON",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/problem+json",
    "",
    "😀/😀",
  ];
  const shots: Shot[] = [];
  for (let n = 0; n < count; n++) {
    const operation = pick(operations);
    const kind = int(20);
    const headers: Record<string, string> = {};
    if (next() < 0.85) headers["x-api-key"] = next() < 0.5 ? pick(PROTO_NAMES) : `hostile-${int(5)}`;
    if (next() < 0.6) headers["x-company-id"] = next() < 0.4 ? companyId : pick(ODD_TEXT).slice(0, 200);
    if (next() < 0.1) headers["x-sandbox-account"] = pick(ODD_TEXT).slice(0, 200);
    let pathText = oddIds(random, operation.path, companyId);
    if (next() < 0.4) pathText += `?${oddQuery(random, oddText)}`;
    let method = operation.method.toUpperCase();
    let body: string | Buffer | undefined;
    let raw: string | undefined;
    switch (kind) {
      case 0:
        method = pick(["PROPFIND", "TRACE", "HEAD", "OPTIONS", "PURGE", "FOO", "PUT", "DELETE", "PATCH"]);
        break;
      case 1:
        pathText = pick(ODD_PATHS);
        break;
      case 2:
        headers["x-api-key"] = "k".repeat(8_000 + int(20_000));
        break;
      case 3:
        headers["x-huge"] = "h".repeat(20_000);
        break;
      case 4:
        raw = pick(RAW_REQUESTS);
        break;
      case 5:
        body = Buffer.alloc(1024 * 1024 + 1 + int(1024 * 1024), 0x61);
        break;
      case 6:
        method = "POST";
        pathText = "/_sandbox/scenarios";
        body = scenarioBody(random);
        break;
      case 7: {
        const [callMethod, callPath, callBody] = controlCall(random, companyId);
        method = callMethod;
        pathText = callPath;
        headers["x-api-key"] = "hostile-0";
        if (callBody !== undefined) body = JSON.stringify(callBody);
        break;
      }
      default:
        body = pick(bodies)();
    }
    if (body !== undefined) {
      if (method === "GET" || method === "HEAD") method = "POST";
      const contentType = next() < 0.6 ? "application/json" : pick(contentTypes);
      if (contentType) headers["content-type"] = contentType;
    }
    shots.push({ method, path: pathText, headers, ...(body !== undefined ? { body } : {}), ...(raw ? { raw } : {}) });
  }
  return shots;
}

/**
 * A scenario (an Arazzo document) whose ids, outputs, inputs, references and keys are Object.prototype members.
 * @returns the shot's body, POSTed to /_sandbox/scenarios
 */
function scenarioBody(random: ReturnType<typeof seededRandom>): string {
  const { pick, next } = random;
  const name = pick(PROTO_NAMES);
  const step = (stepId: string, operationId: string, extra: Record<string, unknown> = {}) => ({
    stepId,
    operationId: `$sourceDescriptions.${pick(["partner", name])}.${operationId}`,
    ...extra,
  });
  const body = JSON.stringify(
    next() < 0.3
      ? { name, inputs: { [name]: 1 } }
      : {
          workflowId: pick([name, "w"]),
          inputs: { apiKey: name, [name]: name },
          arazzo: {
            arazzo: "1.0.1",
            info: { title: name, version: "1" },
            sourceDescriptions: [
              { name: "partner", url: `${name}.yaml` },
              { name, url: name, type: pick(["openapi", "arazzo"]) },
            ],
            workflows: [
              {
                workflowId: pick([name, "w"]),
                inputs: { type: "object", properties: { [name]: { type: "string", default: name } } },
                parameters: [{ name: "X-API-Key", in: "header", value: `$inputs.${name}` }],
                steps: [
                  step(pick(["constructor", "toString", "valueOf"]), "listCompanies", {
                    outputs: { [name]: "$response.body#/companies/0/name", toString: `$inputs.${name}` },
                  }),
                  step("onboard", pick(["onboardCompany", "valueOf", "toString", "hasOwnProperty"]), {
                    requestBody: {
                      payload: { ...ONBOARD_BODY, name: `{$steps.${name}.outputs.${name}}`, [name]: 1 },
                    },
                    successCriteria: [{ condition: `$response.body#/${name} == $inputs.${name}` }],
                  }),
                  next() < 0.5
                    ? { stepId: "nested", workflowId: `$sourceDescriptions.${name}.${name}` }
                    : step("cards", "listCards", {
                        parameters: [{ name: "X-Company-Id", in: "header", value: `$steps.${name}.outputs.id` }],
                      }),
                  step("again", "listCards", {
                    parameters: [
                      { name, in: "query", value: "1" },
                      { name: "keyword", in: "query", value: `$components.${name}.x` },
                    ],
                    onFailure: [{ name, type: "goto", stepId: name }],
                  }),
                ],
                outputs: { [name]: `$steps.${name}.outputs.${name}` },
              },
            ],
          },
        },
  );
  return body;
}

/** The control API with bodies of the right shape and hostile values, as the company's own account. */
function controlCall(random: ReturnType<typeof seededRandom>, companyId: string): [string, string, unknown?] {
  const { pick } = random;
  const name = pick(PROTO_NAMES);
  const company = `/_sandbox/companies/${companyId}`;
  const calls: [string, string, unknown?][] = [
    ["POST", "/_sandbox/clock/advance", { seconds: 31_536_000 }],
    ["POST", "/_sandbox/clock/advance", { to: "9999-12-31T23:59:59.999Z" }],
    ["POST", "/_sandbox/faults", { operationId: name, status: 503 }],
    ["POST", "/_sandbox/webhook-endpoints", { url: `http://127.0.0.1:9/${name}`, secret: name, events: [name] }],
    ["POST", "/_sandbox/webhook-endpoints", { url: "http://127.0.0.1:9/", secret: name }],
    ["PATCH", `/_sandbox/webhook-endpoints/${encodeURIComponent(name)}`, { events: [name] }],
    ["POST", `${company}/kyc-status`, { kycStatus: name }],
    ["POST", `${company}/kyc-status`, { kycStatus: "approved" }],
    ["POST", `${company}/terms-acceptance`, { tosAccepted: true }],
    ["POST", `${company}/payment-routes`, { type: "offramp", force: true, currency: name }],
    ["POST", `${company}/payment-routes`, { type: "onramp", force: true }],
    ["POST", `${company}/spending-account/entries`, { amount: 1e9, type: name }],
    ["POST", `${company}/wallets`, { currency: name }],
    ["POST", `${company}/card-holders`, { name, email: `${name}@example.com` }],
    ["POST", `${company}/kyb-result`, { status: name }],
    ["GET", `/_sandbox/requests?operationId=${name}&status=abc&api=${name}&account=${name}&limit=-1`],
    ["GET", `/_sandbox/events?type=${name}`],
    ["POST", "/_sandbox/events/evt_01JD8X9N4E2R6T8V0W2Y4Z6A8C/resend"],
    ["GET", `/_sandbox/accounts/acct_${"0".repeat(12)}`],
  ];
  return pick(calls);
}

/** An operation's path with each parameter the company's id, an escape that decodes to nothing, or odd text. */
function oddIds(random: ReturnType<typeof seededRandom>, path: string, companyId: string): string {
  const { pick, next } = random;
  return path.replace(/\{[^}]+\}/g, () => {
    const roll = next();
    if (roll < 0.3) return companyId;
    // Escapes that decode to nothing (a lone %, a cut-short or overlong UTF-8 sequence), sent as they are.
    if (roll < 0.4) return pick(["%", "%zz", "%E0%A4%A", "%C0%AF", "%ED%A0%80", "..%2f..%2f", "%00"]);
    return encodeURIComponent(pick(ODD_TEXT));
  });
}

/** A query string of odd pages, limits, names and keywords (a few of them, drawn in order). */
function oddQuery(random: ReturnType<typeof seededRandom>, oddText: () => string): string {
  const { int, pick } = random;
  const query = [
    `page=${pick(["-1", "0", "abc", "1e309", "99999999999999999999", "", "1.5"])}`,
    `limit=${pick(["-5", "0", "1000000", "x"])}`,
    `${encodeURIComponent(pick(PROTO_NAMES))}=${encodeURIComponent(pick(ODD_TEXT))}`,
    `keyword=${encodeURIComponent(oddText().slice(0, 5_000))}`,
    "page=1&page=2",
    "%zz=%zz",
  ];
  return query.slice(0, 1 + int(query.length)).join("&");
}

interface Answered {
  status: number;
  text: string;
}

/** A header's text as the bytes of its UTF-8 (the client sends Latin-1 only). */
const asBytes = (text: string) => Buffer.from(text, "utf8").toString("latin1");

/** Headers over this many bytes go on a socket of their own: Node answers 431 and closes the connection. */
const HUGE_HEADERS = 12 * 1024;

function send(url: URL, agent: http.Agent, shot: Shot): Promise<Answered> {
  if (shot.raw) return sendRaw(url, shot.raw);
  const headers = Object.fromEntries(Object.entries(shot.headers).map(([name, value]) => [name, asBytes(value)]));
  // Node's client sends a DELETE's (or an OPTIONS') body with neither length nor chunks: the length says where it ends.
  if (shot.body !== undefined) headers["content-length"] = String(Buffer.byteLength(shot.body));
  // The client escapes nothing: what it would refuse to send is escaped here.
  const target = shot.path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  const headerText = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  if (headerText.length > HUGE_HEADERS)
    return sendRaw(url, `${shot.method} ${target} HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n${headerText}\r\n`);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, method: shot.method, path: target, headers, agent },
      (response) => {
        // A stream (the request log's) never ends: its status is the answer.
        if (response.headers["content-type"]?.startsWith("text/event-stream")) {
          resolve({ status: response.statusCode ?? 0, text: "" });
          request.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          // Only the start is kept: enough to explain a failure.
          if (size < 2_000) chunks.push(chunk);
          size += chunk.length;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8").slice(0, 300) }),
        );
        response.on("error", reject);
      },
    );
    request.setTimeout(NO_ANSWER_MS, () => request.destroy(new Error("no answer")));
    request.on("error", reject);
    request.end(shot.body);
  });
}

/** Raw bytes on a socket: the status line of the answer, if any (Node's parser answers 400 to what it cannot read). */
function sendRaw(url: URL, raw: string): Promise<Answered> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = "";
    socket.setTimeout(NO_ANSWER_MS, () => socket.destroy(new Error("no answer")));
    // Written, not ended: a client that half-closes its side gets its connection closed, answered or not.
    socket.on("connect", () => socket.write(raw, "latin1"));
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      if (match) {
        resolve({ status: Number(match[1]), text: received.slice(0, 300) });
        socket.destroy();
      }
    });
    socket.on("error", reject);
    socket.on("close", () => reject(new Error(`closed without an answer: ${JSON.stringify(received.slice(0, 100))}`)));
  });
}

/** `gc` when the process can be made to expose it (it can in Node); undefined otherwise. */
function collector(): (() => void) | undefined {
  try {
    v8.setFlagsFromString("--expose-gc");
    return vm.runInNewContext("gc") as () => void;
  } catch {
    return undefined;
  }
}

async function heapUsed(gc: (() => void) | undefined): Promise<number> {
  if (gc) {
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return process.memoryUsage().heapUsed;
}

let sandbox: Sandbox;
beforeAll(async () => {
  // In memory: a state file's writes are limits.test.ts's (a refused body leaves the next write working).
  sandbox = await startSandbox({ port: 0, seed: 9, frozen: true, startTime: "2030-01-01T00:00:00Z" });
});
afterAll(() => sandbox.stop());

describe("hostile input", () => {
  it("a path id whose escapes decode to nothing: the 422 of a bad id, naming the parameter", async () => {
    const agent = new http.Agent();
    const url = new URL(sandbox.url);
    for (const [method, target, parameter] of [
      ["GET", "/_sandbox/accounts/%E0%A4%A", "account"],
      ["PATCH", "/v1/cards/%/unfreeze", "cardId"],
      ["GET", "/_sandbox/companies/%C0%AF/wallets", "companyId"],
    ] as const) {
      const answer = await send(url, agent, {
        method,
        path: target,
        headers: { "x-api-key": "escapes", "x-company-id": "01JD8X9N4E2R6T8V0W2Y4Z6A8C" },
      });
      expect(answer.status, target).toBe(422);
      expect(answer.text, target).toContain(`the path parameter ${parameter}`);
    }
    agent.destroy();
  });

  // The barrage (built, then sent) is several seconds of CPU: npm run test:all runs it, npm test the bad-id test
  // above (docs/api-team.md, "The fast command and the whole set"). test/sandbox/hostile-bounds.test.ts sends the largest attacks to a process.
  it("builds the same barrage from the same seed", { tags: ["slow"] }, () => {
    const digest = (shots: Shot[]) => {
      const hash = createHash("sha256");
      for (const shot of shots) hash.update(JSON.stringify({ ...shot, body: undefined })).update(shot.body ?? "");
      return hash.digest("hex");
    };
    const first = barrage(SEED, REQUESTS, "01JD8X9N4E2R6T8V0W2Y4Z6A8C");
    expect(digest(barrage(SEED, REQUESTS, "01JD8X9N4E2R6T8V0W2Y4Z6A8C"))).toBe(digest(first));
    expect(digest(barrage(SEED + 1, REQUESTS, "01JD8X9N4E2R6T8V0W2Y4Z6A8C"))).not.toBe(digest(first));
  });

  it(`${REQUESTS} malformed, huge, deep and odd requests: every one answered, none 5xx, memory back after`, {
    tags: ["slow"],
    timeout: 30_000,
  }, async () => {
    const url = new URL(sandbox.url);
    const client = clientFor(sandbox.url, "hostile-0");
    const { companyId, cardHolderId } = await seededCompany(client);
    const gc = collector();
    // Warm up (every operation's validator compiled, the dashboard's files read), then measure from a reset.
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    for (const shot of barrage(SEED + 1, 100, companyId)) await send(url, agent, shot).catch(() => undefined);
    await client.post("/_sandbox/reset");
    const before = await heapUsed(gc);

    const shots = barrage(SEED, REQUESTS, companyId);
    const answers: (Answered | undefined)[] = new Array(shots.length);
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < shots.length) {
        const index = next++;
        const shot = shots[index]!;
        const what = `#${index} ${shot.method} ${shot.path.slice(0, 120)}${shot.raw ? ` (raw ${JSON.stringify(shot.raw.slice(0, 60))})` : ""}`;
        try {
          const answer = await send(url, agent, shot);
          answers[index] = answer;
          if (answer.status >= 500) failures.push(`${what}: ${answer.status} ${answer.text}`);
        } catch (error) {
          failures.push(
            `${what}: ${(error as Error).message} (${shot.body?.length ?? 0} bytes, ${JSON.stringify(shot.headers).slice(0, 200)})`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    agent.destroy();
    expect(failures.slice(0, 10)).toEqual([]);
    expect(answers.filter((answer) => answer !== undefined)).toHaveLength(REQUESTS);
    // The barrage reached every kind of refusal (the router's, the parser's, the limits', the contract's), and
    // calls that changed something too.
    const statuses = new Set(answers.map((answer) => answer!.status));
    for (const status of [200, 201, 204, 400, 401, 404, 405, 413, 415, 422, 431])
      expect([...statuses]).toContain(status);
    // Nothing leaked from the disk.
    for (const answer of answers) expect(answer!.text).not.toMatch(/root:x:0:0|"devDependencies"/);

    // Still works: an account, a company, a card, and the clock.
    const after = clientFor(sandbox.url, "after-the-barrage");
    const onboarded = await after.post("/v1/companies", ONBOARD_BODY);
    expect(onboarded.status).toBe(201);
    const seeded = await seededCompany(after);
    const card = await after.post(
      "/v1/cards",
      { cardHolderId: seeded.cardHolderId, name: "After", category: "Other", bin: "45671234" },
      { companyId: seeded.companyId },
    );
    expect(card.status).toBe(201);
    expect(cardHolderId).toBeTruthy();
    expect((await after.post("/_sandbox/clock/advance", { seconds: 60 })).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // Memory: back near where it started once the sandbox is reset (its state and request log let go).
    await after.post("/_sandbox/reset");
    const grown = (await heapUsed(gc)) - before;
    expect(grown, `heap grew ${Math.round(grown / 1024 / 1024)} MB`).toBeLessThan((gc ? 24 : 128) * 1024 * 1024);
  });
});
