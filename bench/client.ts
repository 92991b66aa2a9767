/**
 * Client per-call cost: this client against plain openapi-fetch making the same call and a hand-written
 * `fetch`, all three handed the same in-process stub `fetch` (no network), so only the code on the way
 * from the call to `fetch` and back is measured.
 */
import createClient from "openapi-fetch";
import type { paths } from "../generated/schema.js";
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import { createPartnerClient } from "../src/index.ts";
import { apiKeyMiddleware, companyMiddleware } from "../src/auth.ts";
import { parameterCheckMiddleware } from "../src/params.ts";
import { DEFAULT_TIMEOUT_MS, withTimeout } from "../src/timeout.ts";
import { compareAlternating } from "./harness.ts";
import type { Benchmark } from "./context.ts";
import type { Figure, Ratio } from "./results.ts";

export const BASE_URL = "http://127.0.0.1:9/bench";
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

/** What the stub saw of one request, to prove the three callers send the same thing. */
export interface SeenRequest {
  method: string;
  url: string;
  apiKey: string | null;
  companyId: string | null;
  contentType: string | null;
  body: string;
}

/** The in-process server: answers GET /v1/cards with 200 and POST /v1/cards with 201, like the contract's examples. */
export function stubFetch(record?: (seen: SeenRequest) => void): (request: Request) => Promise<Response> {
  return async (request) => {
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

/** The three callers, each making `GET /v1/cards?page=2&limit=20` and `POST /v1/cards` for one company. */
export function makeCallers(fetch: (request: Request) => Promise<Response>) {
  const ours = createPartnerClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch }).forCompany(COMPANY_ID);
  const oursNoRetry = createPartnerClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, retry: false }).forCompany(COMPANY_ID);
  const plain = createClient<paths>({ baseUrl: BASE_URL, fetch, headers: { "X-API-Key": API_KEY } });
  const companyHeader = { "X-Company-Id": COMPANY_ID };
  const query = { page: 2, limit: 20 };
  const check = <T extends { data?: unknown; error?: unknown }>(result: T): T => {
    if (result.data === undefined) throw new Error(`client benchmark: a call failed: ${JSON.stringify(result.error)}`);
    return result;
  };
  const handGet = async () => {
    const response = await fetch(
      new Request(`${BASE_URL}/v1/cards?page=${query.page}&limit=${query.limit}`, { headers: { "X-API-Key": API_KEY, ...companyHeader } }),
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
  // Diagnostics: plain openapi-fetch plus one of the client's layers each, to see where its cost is.
  const plainWithMiddleware = createClient<paths>({ baseUrl: BASE_URL, fetch });
  plainWithMiddleware.use(parameterCheckMiddleware, apiKeyMiddleware(API_KEY), companyMiddleware(COMPANY_ID));
  const plainWithTimeout = createClient<paths>({ baseUrl: BASE_URL, fetch: withTimeout(fetch, DEFAULT_TIMEOUT_MS), headers: { "X-API-Key": API_KEY } });
  return {
    get: {
      ours: async () => check(await ours.GET("/v1/cards", { params: { query } })),
      "ours, retry: false": async () => check(await oursNoRetry.GET("/v1/cards", { params: { query } })),
      "plain openapi-fetch": async () => check(await plain.GET("/v1/cards", { params: { header: companyHeader, query } })),
      "hand-written fetch": handGet,
      "plain + the client's middleware": async () =>
        check(await plainWithMiddleware.GET("/v1/cards", { params: { query } as { query: typeof query; header: typeof companyHeader } })),
      "plain + the client's timeout (withTimeout)": async () =>
        check(await plainWithTimeout.GET("/v1/cards", { params: { header: companyHeader, query } })),
      // What a user of plain openapi-fetch writes to get a per-request timeout.
      "plain + signal: AbortSignal.timeout(30 s)": async () =>
        check(await plain.GET("/v1/cards", { params: { header: companyHeader, query }, signal: AbortSignal.timeout(DEFAULT_TIMEOUT_MS) })),
      // The fix proposed in the notes, in miniature: the same middleware, and a timeout that costs one timer.
      "plain + middleware + proposed timeout": async () => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), DEFAULT_TIMEOUT_MS);
        try {
          return check(
            await plainWithMiddleware.GET("/v1/cards", { params: { query } as { query: typeof query; header: typeof companyHeader }, signal: controller.signal }),
          );
        } finally {
          clearTimeout(timer);
        }
      },
    },
    post: {
      ours: async () => check(await ours.POST("/v1/cards", { body: CREATE_CARD_REQUEST })),
      "plain openapi-fetch": async () => check(await plain.POST("/v1/cards", { params: { header: companyHeader }, body: CREATE_CARD_REQUEST })),
      "hand-written fetch": handPost,
    },
  };
}

/**
 * Heap bytes still reachable per call right after `calls` calls of each candidate (after a full GC): what a
 * client keeps alive for a while after each request (timers, signals), independent of speed.
 */
export async function retainedBytesPerCall(candidates: Record<string, () => Promise<unknown>>, names: string[], calls: number): Promise<Record<string, number>> {
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
export async function assertSameRequests(): Promise<void> {
  let seen: SeenRequest | undefined;
  const callers = makeCallers(stubFetch((request) => (seen = request)));
  for (const [kind, group] of Object.entries(callers)) {
    let reference: string | undefined;
    for (const [name, call] of Object.entries(group)) {
      seen = undefined;
      await call();
      if (!seen) throw new Error(`client benchmark: ${name} (${kind}) did not call fetch`);
      const summary = JSON.stringify({ ...(seen as SeenRequest), contentType: (seen as SeenRequest).contentType?.split(";")[0] ?? null });
      reference ??= summary;
      if (summary !== reference) throw new Error(`client benchmark: ${name} (${kind}) sends ${summary}, the first caller sent ${reference}`);
    }
  }
}

export const clientBenchmark: Benchmark = {
  name: "client",
  title: "Client per-call cost",
  async run({ size, progress }) {
    await assertSameRequests();
    const callers = makeCallers(stubFetch());
    const rounds = size === "full" ? 21 : size === "quick" ? 7 : 1;
    const targetBatchMs = size === "full" ? 50 : size === "quick" ? 20 : 2;
    const figures: Figure[] = [];
    const ratios: Ratio[] = [];
    const notes: string[] = [];
    const labels = { get: "company-scoped GET /v1/cards?page=2&limit=20", post: "POST /v1/cards with a JSON body" } as const;
    // The client's timeout keeps memory alive for 30 s per call (see the notes), which makes the garbage collector work
    // harder for every candidate in this process. So the layers that do not involve it are compared first, before the
    // client has made more than a handful of calls.
    const groups = [
      {
        id: "GET, layers",
        kind: "get",
        names: ["plain openapi-fetch", "plain + the client's middleware", "plain + middleware + proposed timeout"],
        figures: ["plain + the client's middleware", "plain + middleware + proposed timeout"],
      },
      {
        id: "GET",
        kind: "get",
        names: ["ours", "ours, retry: false", "plain openapi-fetch", "plain + the client's timeout (withTimeout)", "plain + signal: AbortSignal.timeout(30 s)", "hand-written fetch"],
      },
      { id: "POST", kind: "post", names: ["ours", "plain openapi-fetch", "hand-written fetch"] },
    ] as const;
    for (const group of groups) {
      const all = callers[group.kind] as Record<string, () => Promise<unknown>>;
      const result = await compareAlternating({
        candidates: Object.fromEntries(group.names.map((name) => [name, all[name]!])),
        rounds,
        targetBatchMs,
        async: true,
        onRound: (round, total) => progress(`client ${group.id}: round ${round}/${total}`),
      });
      const shown: readonly string[] = "figures" in group ? group.figures : group.names;
      for (const name of shown) {
        figures.push({ label: `${name}, ${labels[group.kind]}`, value: result.stats[name]!.medianOpsPerSecond, unit: "calls/s" });
      }
      if (group.id === "GET, layers") {
        ratios.push({ label: "plain + the client's middleware ÷ plain, GET", value: result.ratio("plain + the client's middleware", "plain openapi-fetch") });
        ratios.push({ label: "plain + middleware + proposed timeout ÷ plain, GET", value: result.ratio("plain + middleware + proposed timeout", "plain openapi-fetch") });
        continue;
      }
      const kind = group.kind.toUpperCase();
      ratios.push({ label: `ours ÷ plain openapi-fetch, ${kind}`, value: result.ratio("ours", "plain openapi-fetch"), target: 0.9 });
      ratios.push({ label: `plain openapi-fetch ÷ hand-written fetch, ${kind}`, value: result.ratio("plain openapi-fetch", "hand-written fetch") });
      if (group.id === "GET") {
        ratios.push({ label: "ours with retry: false ÷ plain openapi-fetch, GET", value: result.ratio("ours, retry: false", "plain openapi-fetch") });
        ratios.push({ label: "plain + the client's timeout ÷ plain, GET", value: result.ratio("plain + the client's timeout (withTimeout)", "plain openapi-fetch") });
        ratios.push({ label: "ours ÷ plain with its own AbortSignal.timeout, GET", value: result.ratio("ours", "plain + signal: AbortSignal.timeout(30 s)") });
      }
    }
    const retained = await retainedBytesPerCall(callers.get, ["ours", "plain openapi-fetch"], size === "tiny" ? 200 : 2_000);
    for (const [name, bytes] of Object.entries(retained)) {
      figures.push({ label: `heap still held per call just after the calls (${name}, GET)`, value: bytes, unit: "bytes" });
    }
    const ratioOf = (prefix: string): string => ratios.find((r) => r.label.startsWith(prefix))!.value.toFixed(2);
    const missed = ratios.filter((r) => r.target !== undefined && r.value < r.target);
    if (missed.length > 0) {
      notes.push(
        `Target missed (${missed.map((r) => `${r.label.replace("ours ÷ plain openapi-fetch, ", "")} ${r.value.toFixed(2)}x`).join(", ")}). ` +
          `Where the cost is, GET: plain openapi-fetch with only the client's three middleware (parameter check, API key, ` +
          `company) runs at ${ratioOf("plain + the client's middleware")}x plain` +
          `${Number(ratioOf("plain + the client's middleware")) >= 0.9 ? ", so the middleware is cheap" : " (openapi-fetch's middleware path: an id per request, the hooks' calls, `Headers.set` on the Request)"}; ` +
          `with only the client's ` +
          `per-request timeout (src/timeout.ts \`withTimeout\`) at ${ratioOf("plain + the client's timeout")}x. The timeout is ` +
          "the cost: each request makes `AbortSignal.timeout(30 000)`, joins it with the request's own signal through " +
          "`AbortSignal.any`, and copies the Request (`new Request(request, { signal })`). On Node 20 `AbortSignal.any` is slow " +
          "and keeps a timeout signal it was given alive until the timer fires (nodejs/node#54614; fix upstream in " +
          "nodejs/node#60185): the heap figures show about 5 KB held per call, released only when its 30 s timer fires (checked " +
          "separately: 10,000 calls hold ~47 MiB, back to baseline 33 s later). The POST pays more than the GET because copying a Request that has a body re-wraps its body stream (tens of " +
          "microseconds on this machine). The memory held by the timeouts also slows the other candidates in this " +
          "process a little, so the ratios here flatter the client, if anything. Retries add a `request.clone()` per call of a " +
          `safe operation (GET with \`retry: false\`: ${ratioOf("ours with retry: false")}x).`,
      );
      notes.push(
        "Fix needed in src/ (owner of the client): in src/client.ts `withTransport`, make one `AbortController` per call, " +
          "`setTimeout(() => controller.abort(new RequestTimeoutError(…)), timeoutMs)`, `clearTimeout` in a `finally` once the " +
          "response is in; forward a caller's `init.signal` with `addEventListener(\"abort\", …, { once: true })` (removed in the " +
          "same `finally`); pass `signal: controller.signal` in the init handed to openapi-fetch, so the Request is built once " +
          "with it: no `AbortSignal.timeout`, no `AbortSignal.any`, no Request copy. In src/retry.ts, send the request itself " +
          "when `request.body === null` (every GET) and clone only requests with a body. A miniature of that (the client's " +
          `middleware, one \`AbortController\`, a cleared timer, passed as \`signal\`) measured ${ratioOf("plain + middleware + proposed timeout")}x ` +
          "plain in this run. What remains is undici's price for a Request that carries any signal (it links the signal on " +
          "construction): a per-request abortable timeout cannot be free on Node 20 against a stub that answers in microseconds. " +
          "Against a real network call (hundreds of microseconds at least) the difference vanishes; if the 0.9x target must hold " +
          `on the stub, the only way is to make the default timeout opt-in. For scale, plain openapi-fetch given its own ` +
          `\`signal: AbortSignal.timeout(30 s)\` per call: ours ÷ that = ${ratioOf("ours ÷ plain with its own")}x.`,
      );
    }
    return {
      name: this.name,
      title: this.title,
      method:
        "Calls per second, each call awaited, of this client (`createPartnerClient({ apiKey, baseUrl, fetch }).forCompany(id)`, " +
        "default settings: 30 s timeout, retries for safe operations), plain openapi-fetch 0.17 (`createClient<paths>` with the " +
        "API key as a default header and `X-Company-Id` per call) and a hand-written `fetch(new Request(…))` + `response.json()`. " +
        "All get the same stub `fetch` answering the contract's example bodies; before timing, a check proves the three send the " +
        "same method, URL, headers and body. Candidates alternate round by round; ratio = median of per-round ratios.",
      figures,
      ratios,
      notes,
    };
  },
};
