/**
 * Client per-call cost: this client against plain openapi-fetch making the same call and a hand-written
 * `fetch`, all three handed the same in-process stub `fetch` (no network), so only the code on the way
 * from the call to `fetch` and back is measured.
 */
import createClient from "openapi-fetch";
import type { paths } from "../generated/schema.js";
import { createPartnerClient } from "../src/index.ts";
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
  return {
    get: {
      ours: async () => check(await ours.GET("/v1/cards", { params: { query } })),
      "ours, retry: false": async () => check(await oursNoRetry.GET("/v1/cards", { params: { query } })),
      "plain openapi-fetch": async () => check(await plain.GET("/v1/cards", { params: { header: companyHeader, query } })),
      "hand-written fetch": handGet,
    },
    post: {
      ours: async () => check(await ours.POST("/v1/cards", { body: CREATE_CARD_REQUEST })),
      "plain openapi-fetch": async () => check(await plain.POST("/v1/cards", { params: { header: companyHeader }, body: CREATE_CARD_REQUEST })),
      "hand-written fetch": handPost,
    },
  };
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
    for (const kind of ["get", "post"] as const) {
      const result = await compareAlternating({
        candidates: callers[kind],
        rounds,
        targetBatchMs,
        async: true,
        onRound: (round, total) => progress(`client ${kind.toUpperCase()}: round ${round}/${total}`),
      });
      for (const [name, stats] of Object.entries(result.stats)) {
        figures.push({ label: `${name}, ${labels[kind]}`, value: stats.medianOpsPerSecond, unit: "calls/s" });
      }
      ratios.push({ label: `ours ÷ plain openapi-fetch, ${kind.toUpperCase()}`, value: result.ratio("ours", "plain openapi-fetch"), target: 0.9 });
      ratios.push({ label: `plain openapi-fetch ÷ hand-written fetch, ${kind.toUpperCase()}`, value: result.ratio("plain openapi-fetch", "hand-written fetch") });
      if (kind === "get") {
        ratios.push({ label: "ours with retry: false ÷ plain openapi-fetch, GET", value: result.ratio("ours, retry: false", "plain openapi-fetch") });
      }
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
