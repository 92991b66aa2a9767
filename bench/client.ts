/**
 * Client per-call cost: this client against what a partner could pick instead, all handed the same in-process
 * stub `fetch` (no network), so only the code on the way from the call to `fetch` and back is measured:
 * plain openapi-fetch (bare and with a per-call timeout), the SDK @hey-api/openapi-ts generates from our own
 * contract, orval's fetch client generated from it, and a hand-written `fetch`. The two SDKs are generated at
 * bench time into a scratch folder (cached there by the contract's hash and the generators' versions).
 */

import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { build } from "esbuild";
import createClient, { type Middleware } from "openapi-fetch";
import { createPartnerClient, DEFAULT_TIMEOUT_MS, type paths } from "partner-api-client";
import { ensureMatrix, installedMatrix, type RuntimeId, underCI } from "../scripts/lib/runtimes.ts";
import { BASE_URL, type GeneratedSdks, generateSdks, SDKS_BUNDLE } from "./client-sdks.ts";
import type { Benchmark } from "./context.ts";
import { compareAlternating } from "./harness.ts";
import type { Figure, Ratio } from "./results.ts";

const API_KEY = "bench-api-key-0123456789";
const COMPANY_ID = "01JD8X4M6Q2V7R9T3W5Y0Z1A2B";

const LIST_CARDS_BODY = JSON.stringify({
  cards: [
    {
      id: "01JD8X9N4E2R6T8V0W2Y4Z6A8C",
      brand: "Visa",
      last4: "1234",
      name: "Travel - Ana Silva",
      type: "employee",
      status: "Active",
      cardholder: { name: "Ana Silva", email: "ana.silva@example.com" },
      createdAt: "2024-11-22T10:00:00Z",
    },
  ],
});
const CREATE_CARD_REQUEST = {
  cardHolderId: "01JD8X5H3J7K9M1N3P5Q7R9S1T",
  name: "Travel - Ana Silva",
  category: "TravelExpenses",
  bin: "45717360",
  description: "Flights and hotels for the sales team",
} as const;
const CREATE_CARD_BODY = JSON.stringify({ card: { id: "01JD8X9N4E2R6T8V0W2Y4Z6A8C", status: "Creating" } });

/** What the stub saw of one request, to prove the callers send the same thing. */
export interface SeenRequest {
  method: string;
  url: string;
  apiKey: string | null;
  companyId: string | null;
  contentType: string | null;
  body: string;
}

type StubFetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/**
 * The in-process server: answers GET /v1/cards with 200 and POST /v1/cards with 201, like the contract's
 * examples. Like the real `fetch`, it takes a Request or a URL and options; given a URL it builds the Request
 * the real `fetch` would build, so a caller that hands `fetch` a URL (orval's) pays what it would pay for real.
 */
export function stubFetch(record?: (seen: SeenRequest) => void): StubFetch {
  return async (input, init) => {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    if (record) {
      record({
        method: request.method,
        url: request.url,
        apiKey: request.headers.get("X-API-Key"),
        companyId: request.headers.get("X-Company-Id"),
        contentType: request.headers.get("Content-Type"),
        body: request.body ? await request.text() : "",
      });
    }
    const created = request.method === "POST";
    return new Response(created ? CREATE_CARD_BODY : LIST_CARDS_BODY, {
      status: created ? 201 : 200,
      headers: { "Content-Type": "application/json" },
    });
  };
}

type Call = () => Promise<unknown>;

/**
 * orval's fetch client calls the global `fetch` with a URL: it gets the stub the same way while `run` runs.
 * Returns the function that puts the real one back.
 */
function lendGlobalFetch(fetch: StubFetch): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = fetch as typeof globalThis.fetch;
  return () => {
    globalThis.fetch = original;
  };
}

/** The callers, each making `GET /v1/cards?page=2&limit=20` and `POST /v1/cards` for one company. */
export function makeCallers(fetch: StubFetch, sdks?: GeneratedSdks) {
  const ours = createPartnerClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch }).forCompany(COMPANY_ID);
  const oursNoRetry = createPartnerClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, retry: false }).forCompany(
    COMPANY_ID,
  );
  const plain = createClient<paths>({ baseUrl: BASE_URL, fetch, headers: { "X-API-Key": API_KEY } });
  const companyHeader = { "X-Company-Id": COMPANY_ID };
  const query = { page: 2, limit: 20 };
  const check = <T extends { data?: unknown; error?: unknown }>(result: T): T => {
    if (result.data === undefined) throw new Error(`client benchmark: a call failed: ${JSON.stringify(result.error)}`);
    return result;
  };
  const handGet = async () => {
    const response = await fetch(
      new Request(`${BASE_URL}/v1/cards?page=${query.page}&limit=${query.limit}`, {
        headers: { "X-API-Key": API_KEY, ...companyHeader },
      }),
    );
    if (!response.ok) throw new Error(`client benchmark: hand-written GET got ${response.status}`);
    return response.json() as Promise<object>;
  };
  const handPost = async () => {
    const response = await fetch(
      new Request(`${BASE_URL}/v1/cards`, {
        method: "POST",
        headers: { "X-API-Key": API_KEY, ...companyHeader, "Content-Type": "application/json" },
        body: JSON.stringify(CREATE_CARD_REQUEST),
      }),
    );
    if (!response.ok) throw new Error(`client benchmark: hand-written POST got ${response.status}`);
    return response.json() as Promise<object>;
  };
  // Diagnostics: plain openapi-fetch plus one layer of the kind a client could add, to see what each costs.
  const headerMiddleware: Middleware = {
    onRequest({ request }) {
      request.headers.set("X-API-Key", API_KEY);
      request.headers.set("X-Company-Id", COMPANY_ID);
    },
  };
  const plainWithMiddleware = createClient<paths>({ baseUrl: BASE_URL, fetch });
  plainWithMiddleware.use(headerMiddleware);
  // What a user of plain openapi-fetch writes for a per-request timeout that is cleared when the call ends.
  const withControllerTimeout = async <T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), DEFAULT_TIMEOUT_MS);
    try {
      return await call(controller.signal);
    } finally {
      clearTimeout(timer);
    }
  };
  const get = {
    ours: async () => check(await ours.GET("/v1/cards", { params: { query } })),
    "ours, retry: false": async () => check(await oursNoRetry.GET("/v1/cards", { params: { query } })),
    "plain openapi-fetch": async () =>
      check(await plain.GET("/v1/cards", { params: { header: companyHeader, query } })),
    "hand-written fetch": handGet,
    "plain + a header middleware": async () =>
      check(
        await plainWithMiddleware.GET("/v1/cards", {
          params: { query } as { query: typeof query; header: typeof companyHeader },
        }),
      ),
    "plain + a cleared AbortController timeout": () =>
      withControllerTimeout(async (signal) =>
        check(await plain.GET("/v1/cards", { params: { header: companyHeader, query }, signal })),
      ),
  };
  const post = {
    ours: async () => check(await ours.POST("/v1/cards", { body: CREATE_CARD_REQUEST })),
    "plain openapi-fetch": async () =>
      check(await plain.POST("/v1/cards", { params: { header: companyHeader }, body: CREATE_CARD_REQUEST })),
    "plain + a cleared AbortController timeout": () =>
      withControllerTimeout(async (signal) =>
        check(await plain.POST("/v1/cards", { params: { header: companyHeader }, body: CREATE_CARD_REQUEST, signal })),
      ),
    "hand-written fetch": handPost,
  };
  const extraGet: Record<string, Call> = {};
  const extraPost: Record<string, Call> = {};
  if (sdks) {
    // hey-api's own client, with its auth hook supplying the API key for the contract's security scheme.
    const { heyApi, orval } = sdks;
    const hey = heyApi.createClient(heyApi.createConfig({ baseUrl: BASE_URL, fetch, auth: () => API_KEY }));
    extraGet["hey-api SDK"] = async () => check(await heyApi.listCards({ client: hey, headers: companyHeader, query }));
    extraPost["hey-api SDK"] = async () =>
      check(await heyApi.createCard({ client: hey, headers: companyHeader, body: CREATE_CARD_REQUEST }));
    // orval's fetch functions take the headers per call; they answer { data, status } and do not throw.
    const orvalHeaders = { "X-API-Key": API_KEY, ...companyHeader };
    const orvalCheck = (result: { data: unknown; status: number }) => {
      if (result.status >= 300) throw new Error(`client benchmark: orval got ${result.status}`);
      return result;
    };
    extraGet["orval fetch client"] = async () => orvalCheck(await orval.listCards(query, { headers: orvalHeaders }));
    extraPost["orval fetch client"] = async () =>
      orvalCheck(await orval.createCard(CREATE_CARD_REQUEST, { headers: orvalHeaders }));
  }
  return {
    get: { ...get, ...extraGet } as typeof get & Record<string, Call>,
    post: { ...post, ...extraPost } as typeof post & Record<string, Call>,
  };
}

/** The candidates every runtime measures, and the ratios of ours to the other two. */
const RUNTIME_CANDIDATES = ["ours", "plain openapi-fetch", "hey-api SDK"] as const;

/** What one runtime measured of the client, per kind of call: calls/s of each candidate and ours ÷ each other. */
export interface RuntimeMeasure {
  /** "Node.js 24.21.0", "Bun 1.4.5". */
  runtime: string;
  kinds: Record<"GET" | "POST", { opsPerSecond: Record<string, number>; oursPerPlain: number; oursPerHeyApi: number }>;
}

/**
 * The per-call comparison inside one runtime (the child process that bench/client.ts starts with Node 20, Node 24
 * and Bun of the runtime matrix, each running the same bundle of this module): ours, plain openapi-fetch and the
 * hey-api SDK against the stub `fetch`, in alternating rounds.
 */
export async function measureInRuntime(
  sdks: GeneratedSdks,
  rounds: number,
  targetBatchMs: number,
): Promise<RuntimeMeasure> {
  const fetch = stubFetch();
  const callers = makeCallers(fetch, sdks);
  const giveBack = lendGlobalFetch(fetch);
  const bun = (globalThis as { Bun?: { version: string } }).Bun;
  const measure: RuntimeMeasure = {
    runtime: bun ? `Bun ${bun.version}` : `Node.js ${process.versions.node}`,
    kinds: {} as RuntimeMeasure["kinds"],
  };
  try {
    for (const kind of ["GET", "POST"] as const) {
      const group = callers[kind === "GET" ? "get" : "post"];
      const result = await compareAlternating({
        candidates: Object.fromEntries(RUNTIME_CANDIDATES.map((name) => [name, group[name]!])),
        rounds,
        targetBatchMs,
        async: true,
      });
      measure.kinds[kind] = {
        opsPerSecond: Object.fromEntries(
          RUNTIME_CANDIDATES.map((name) => [name, result.stats[name]!.medianOpsPerSecond]),
        ),
        oursPerPlain: result.ratio("ours", "plain openapi-fetch"),
        oursPerHeyApi: result.ratio("ours", "hey-api SDK"),
      };
    }
  } finally {
    giveBack();
  }
  return measure;
}

/** The runtimes the comparison runs in, from the runtime matrix (runtimes/package.json). */
const COMPARED_RUNTIMES: readonly RuntimeId[] = ["node20", "node24", "bun"];

/**
 * Bundles measureInRuntime with the generated SDKs into one ES module beside them, so every runtime runs the same
 * JavaScript; returns its path.
 */
async function bundleRuntimeBench(repoRoot: string, sdks: GeneratedSdks): Promise<string> {
  const entry = `import { heyClient, heySdk, orval } from ${JSON.stringify(path.join(sdks.dir, SDKS_BUNDLE))};
import { measureInRuntime } from ${JSON.stringify(path.join(repoRoot, "bench", "client.ts"))};
const [rounds, targetBatchMs] = JSON.parse(process.argv[2]);
const sdks = { heyApi: { version: ${JSON.stringify(sdks.heyApi.version)}, ...heyClient, ...heySdk }, orval: { version: ${JSON.stringify(sdks.orval.version)}, ...orval }, dir: "", generated: false };
console.log(JSON.stringify(await measureInRuntime(sdks, rounds, targetBatchMs)));
`;
  const outfile = path.join(sdks.dir, "runtime-bench.mjs");
  await build({
    stdin: { contents: entry, resolveDir: repoRoot, loader: "ts", sourcefile: "runtime-bench-entry.ts" },
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "es2022",
    logLevel: "error",
    // The bundle is ESM; a CommonJS dependency's require of a built-in needs a require in scope.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
  });
  return outfile;
}

/**
 * ours ÷ plain openapi-fetch and ours ÷ the hey-api SDK in Node 20, Node 24 and Bun, one after another in one run.
 * The matrix is installed on demand, except at tiny size outside CI (a test run), where its absence skips this part.
 */
async function compareRuntimes(
  repoRoot: string,
  sdks: GeneratedSdks,
  rounds: number,
  targetBatchMs: number,
  tiny: boolean,
  progress: (message: string) => void,
): Promise<{ measures: RuntimeMeasure[]; skipped?: string }> {
  const matrix = tiny && !underCI() ? await installedMatrix() : await ensureMatrix(progress);
  if (!matrix)
    return { measures: [], skipped: "the runtime matrix is not installed (npm run test:runtimes -- --install)" };
  const bundle = await bundleRuntimeBench(repoRoot, sdks);
  const measures: RuntimeMeasure[] = [];
  for (const id of COMPARED_RUNTIMES) {
    const binary = matrix.runtimes.get(id)!.path;
    progress(`client: per-call figures in ${id} (${rounds} rounds)`);
    const { stdout } = await promisify(execFile)(binary, [bundle, JSON.stringify([rounds, targetBatchMs])], {
      cwd: sdks.dir,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 10 * 60_000,
    }).catch((error: Error & { stderr?: string }) => {
      throw new Error(`client benchmark in ${id} failed: ${error.stderr?.trim() || error.message}`);
    });
    measures.push(JSON.parse(stdout.trim().split("\n").at(-1)!) as RuntimeMeasure);
  }
  return { measures };
}

/**
 * Heap bytes still reachable per call right after `calls` calls of each candidate (after a full GC): what a
 * client keeps alive for a while after each request (timers, signals), independent of speed.
 */
async function retainedBytesPerCall(
  candidates: Record<string, Call>,
  names: string[],
  calls: number,
): Promise<Record<string, number>> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const result: Record<string, number> = {};
  for (const name of names) {
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < calls; i++) await candidates[name]!();
    gc();
    result[name] = Math.max(0, (process.memoryUsage().heapUsed - before) / calls);
  }
  return result;
}

/** Runs every caller once against a recording stub and throws when any sends something the others do not. */
export async function assertSameRequests(sdks?: GeneratedSdks): Promise<void> {
  let seen: SeenRequest | undefined;
  const fetch = stubFetch((request) => {
    seen = request;
  });
  const callers = makeCallers(fetch, sdks);
  const giveBack = lendGlobalFetch(fetch);
  try {
    for (const [kind, group] of Object.entries(callers)) {
      let reference: string | undefined;
      for (const [name, call] of Object.entries(group)) {
        seen = undefined;
        await call();
        if (!seen) throw new Error(`client benchmark: ${name} (${kind}) did not call fetch`);
        const summary = JSON.stringify({
          ...(seen as SeenRequest),
          contentType: (seen as SeenRequest).contentType?.split(";")[0] ?? null,
        });
        reference ??= summary;
        if (summary !== reference)
          throw new Error(`client benchmark: ${name} (${kind}) sends ${summary}, the first caller sent ${reference}`);
      }
    }
  } finally {
    giveBack();
  }
}

/** Calls per second of every caller in this process (GET and POST), and the heap each still holds per call. */
async function compareInProcess(
  fetch: StubFetch,
  callers: ReturnType<typeof makeCallers>,
  rounds: number,
  targetBatchMs: number,
  size: string,
  progress: (message: string) => void,
): Promise<{ figures: Figure[]; ratios: Ratio[] }> {
  const figures: Figure[] = [];
  const ratios: Ratio[] = [];
  const labels = {
    get: "company-scoped GET /v1/cards?page=2&limit=20",
    post: "POST /v1/cards with a JSON body",
  } as const;
  const compared = [
    "ours",
    "plain openapi-fetch",
    "plain + a cleared AbortController timeout",
    "hey-api SDK",
    "orval fetch client",
    "hand-written fetch",
  ];
  const groups = [
    { id: "GET", kind: "get", names: [...compared, "ours, retry: false", "plain + a header middleware"] },
    { id: "POST", kind: "post", names: compared },
  ] as const;
  const giveBack = lendGlobalFetch(fetch);
  try {
    for (const group of groups) {
      const all = callers[group.kind];
      const result = await compareAlternating({
        candidates: Object.fromEntries(group.names.map((name) => [name, all[name]!])),
        rounds,
        targetBatchMs,
        async: true,
        onRound: (round, total) => progress(`client ${group.id}: round ${round}/${total}`),
      });
      for (const name of group.names) {
        figures.push({
          label: `${name}, ${labels[group.kind]}`,
          value: result.stats[name]!.medianOpsPerSecond,
          unit: "calls/s",
        });
      }
      const kind = group.id;
      const ratio = (a: string, b: string, label: string, target?: number) =>
        ratios.push({ label: `${label}, ${kind}`, value: result.ratio(a, b), ...(target ? { target } : {}) });
      ratio("ours", "plain openapi-fetch", "ours ÷ plain openapi-fetch (no timeout)", 0.85);
      ratio("ours", "hey-api SDK", "ours ÷ hey-api SDK", 1);
      ratio("ours", "plain + a cleared AbortController timeout", "ours ÷ plain openapi-fetch with a per-call timeout");
      ratio("ours", "orval fetch client", "ours ÷ orval fetch client");
      ratio("hey-api SDK", "plain openapi-fetch", "hey-api SDK ÷ plain openapi-fetch");
      ratio(
        "plain + a cleared AbortController timeout",
        "plain openapi-fetch",
        "plain with a per-call timeout ÷ plain",
      );
      ratio("plain openapi-fetch", "hand-written fetch", "plain openapi-fetch ÷ hand-written fetch");
      if (kind === "GET") {
        ratio("ours, retry: false", "plain openapi-fetch", "ours with retry: false ÷ plain openapi-fetch");
        ratio("plain + a header middleware", "plain openapi-fetch", "plain + a header middleware ÷ plain");
      }
    }
    const retained = await retainedBytesPerCall(
      callers.get,
      ["ours", "plain openapi-fetch", "plain + a cleared AbortController timeout", "hey-api SDK"],
      size === "tiny" ? 200 : 2_000,
    );
    for (const [name, bytes] of Object.entries(retained)) {
      figures.push({
        label: `heap still held per call just after the calls (${name}, GET)`,
        value: bytes,
        unit: "bytes",
      });
    }
  } finally {
    giveBack();
  }
  return { figures, ratios };
}

/** The per-runtime figures and ratios (Node 20, Node 24, Bun), added to the in-process ones. */
function addRuntimeFigures(
  runtimes: Awaited<ReturnType<typeof compareRuntimes>>,
  figures: Figure[],
  ratios: Ratio[],
): void {
  for (const measure of runtimes.measures) {
    for (const [kind, figuresOf] of Object.entries(measure.kinds)) {
      for (const [name, value] of Object.entries(figuresOf.opsPerSecond))
        figures.push({ label: `${name}, ${kind} /v1/cards, in ${measure.runtime}`, value, unit: "calls/s" });
      ratios.push({
        label: `ours ÷ plain openapi-fetch, ${kind}, in ${measure.runtime}`,
        value: figuresOf.oursPerPlain,
      });
      ratios.push({ label: `ours ÷ hey-api SDK, ${kind}, in ${measure.runtime}`, value: figuresOf.oursPerHeyApi });
    }
  }
}

/** What the figures mean, quoting the ratios they rest on. */
function clientNotes(
  ratios: Ratio[],
  runtimes: Awaited<ReturnType<typeof compareRuntimes>>,
  sdks: GeneratedSdks,
): string[] {
  const notes: string[] = [];
  notes.push(
    runtimes.skipped
      ? `Per-runtime figures skipped: ${runtimes.skipped}.`
      : `Per runtime: the same comparison (ours, plain openapi-fetch, the hey-api SDK; the same stub) bundled into one ES module and run by ${runtimes.measures.map((m) => m.runtime).join(", ")} of the runtime matrix (runtimes/package.json), one after another in this run; each "in …" ratio is that runtime's own median of per-round ratios.`,
  );
  const ratioOf = (prefix: string): string => ratios.find((r) => r.label.startsWith(prefix))!.value.toFixed(2);
  notes.push(
    "The client times out every request by default (30 s), which neither plain openapi-fetch nor the generated SDKs do. " +
      "Requests that start within the same window (at most 100 ms and 16 requests) share one AbortController and one timer, " +
      "aborted when the window's timeout is up, so a request is aborted at most one window late; the timer is cleared once the " +
      "window has closed and its last request ended. What still costs is undici linking a signal into every Request it builds " +
      `(a WeakRef, a listener and a FinalizationRegistry entry per request): plain openapi-fetch with a per-call AbortController ` +
      `and timer runs at ${ratioOf("plain with a per-call timeout ÷ plain, GET")}x plain (GET) and ` +
      `${ratioOf("plain with a per-call timeout ÷ plain, POST")}x (POST) against this stub, which answers in microseconds.`,
    "The client's other layers cost little or nothing on the way: the API key and the company are default headers of " +
      "the openapi-fetch clients it is built on (no middleware; one middleware setting the same two headers on plain " +
      `openapi-fetch: ${ratioOf("plain + a header middleware")}x plain), openapi-fetch gets a query serializer built once ` +
      "per client instead of one per call, the operation's facts are one Map lookup, and retries run around the call " +
      `instead of wrapping \`fetch\` (ours with \`retry: false\`: ${ratioOf("ours with retry: false")}x plain).`,
    "What moved, from `node --cpu-prof` of 40,000 GETs of this client on the stub before the shared windows " +
      "(one AbortController and one timer per call, a fetch wrapper and two middleware per call) and after, self time " +
      "as a share of the whole: the client's own code 9.1% → 4.1%, timers 2.3% → 0.2%, total time −40%. What stays is " +
      "undici's: every Request builds an AbortController of its own (about 18% of the time, plain openapi-fetch pays it " +
      "too) and links the signal it is given (the Request constructor's 6–7%, listeners 3%, more garbage). Measured on a " +
      "shared machine; the shares, not the times, are the finding.",
    "Heap held just after the calls: undici registers each Request that carries a signal in a FinalizationRegistry, " +
      "whose entries (and their listener closures) live until a later GC's cleanup runs; plain openapi-fetch with a " +
      "per-call AbortController holds as much. The client's own windows hold one AbortController and one timer per " +
      "client at rest.",
    `The generated SDKs: @hey-api/openapi-ts ${sdks.heyApi.version} (its fetch client and SDK, with its auth hook for the ` +
      `API key) and orval ${sdks.orval.version} (fetch client), generated from generated/openapi.json into a scratch folder ` +
      `(${sdks.generated ? "generated in this run" : "reused from an earlier run on the same contract"}). orval hands ` +
      "`fetch` a URL and options instead of a Request; the stub then builds the Request the real `fetch` builds.",
  );
  return notes;
}

export const clientBenchmark: Benchmark = {
  name: "client",
  title: "Client per-call cost",
  async run({ size, progress, repoRoot }) {
    const sdks = await generateSdks(repoRoot, progress);
    await assertSameRequests(sdks);
    const rounds = size === "full" ? 41 : size === "quick" ? 9 : 1;
    const targetBatchMs = size === "full" ? 100 : size === "quick" ? 30 : 2;
    const fetch = stubFetch();
    const { figures, ratios } = await compareInProcess(
      fetch,
      makeCallers(fetch, sdks),
      rounds,
      targetBatchMs,
      size,
      progress,
    );
    const runtimes = await compareRuntimes(repoRoot, sdks, rounds, targetBatchMs, size === "tiny", progress);
    addRuntimeFigures(runtimes, figures, ratios);
    return {
      name: this.name,
      title: this.title,
      method:
        "Calls per second, each call awaited, of this client (`createPartnerClient({ apiKey, baseUrl, fetch }).forCompany(id)`, " +
        "default settings: 30 s timeout, retries for safe operations), plain openapi-fetch 0.17 (`createClient<paths>` with the " +
        "API key as a default header and `X-Company-Id` per call; bare, and with a per-call AbortController timeout), the " +
        "hey-api SDK and orval's fetch client generated from our contract, and a hand-written `fetch(new Request(…))` + " +
        "`response.json()`. All get the same stub `fetch` answering the contract's example bodies; before timing, a check proves " +
        "they all send the same method, URL, headers and body. Candidates alternate round by round; ratio = median of " +
        "per-round ratios. Heap held: bytes still reachable per call after 2,000 calls and a full GC.",
      figures,
      ratios,
      notes: clientNotes(ratios, runtimes, sdks),
    };
  },
};
