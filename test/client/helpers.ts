/** A fetch handed to the client instead of the network: records every request it receives. */
import { createPartnerClient, type PartnerClientOptions } from "../../src/index.ts";

export const API_KEY = "pk_test_5f0c1e2d3a4b_SECRET";
export const COMPANY = "01JD8X2K7P3M9Q4R6S8T0V2W4X";
export const CARD = "01JD8X9N4E2R6T8V0W2Y4Z6A8C";
export const BASE_URL = "http://127.0.0.1:9/api";

export interface Sent {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: string;
  signal: AbortSignal;
}

export type Handler = (sent: Sent, attempt: number) => Response | Promise<Response>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** A fetch that answers with `handler` and keeps what it was sent. */
export function recordingFetch(handler: Handler = () => json({})) {
  const sent: Sent[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const entry: Sent = {
      method: request.method,
      url: request.url,
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      body: await request.text(),
      signal: request.signal,
    };
    sent.push(entry);
    return handler(entry, sent.length);
  };
  return { fetch, sent };
}

/** A client on a recording fetch, with test-speed retries. */
export function testClient(handler?: Handler, options: Partial<Omit<PartnerClientOptions, "companyId">> = {}) {
  const recorder = recordingFetch(handler);
  const client = createPartnerClient({
    apiKey: API_KEY,
    baseUrl: BASE_URL,
    fetch: recorder.fetch,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 20 },
    ...options,
  });
  return { client, company: client.forCompany(COMPANY), sent: recorder.sent };
}
