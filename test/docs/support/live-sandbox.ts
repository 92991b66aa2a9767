/**
 * A sandbox with what the docs' samples and error cases need to run for real: the seeded company, a card, a USDT
 * wallet, a payment route and a ledger transaction; and the contract examples' ids swapped for those (`liveExample`),
 * so a sample the docs show runs as written, only with ids that exist here. A recording proxy in front of it lets a
 * test see exactly what a sample sent and what it got back.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { Json, JsonObject } from "partner-api-devkit/cli";
import { type Sandbox, startSandbox } from "partner-api-devkit/sandbox";
import type { OperationExample } from "../../../scripts/lib/docs/samples.ts";

export const LIVE_API_KEY = "sk_test_docs_samples";

export interface LiveSandbox {
  sandbox: Sandbox;
  url: string;
  /** Live values by the name of the parameter or body field that carries them (`cardId`, `bin`…), and `companyId`. */
  values: ReadonlyMap<string, string>;
}

async function call(url: string, method: string, target: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url + target, {
    method,
    headers: {
      "X-API-Key": LIVE_API_KEY,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`live sandbox: ${method} ${target} answered ${response.status}: ${text}`);
  return JSON.parse(text) as any;
}

/** Starts a sandbox (seed 7) and makes one of each record the operations read. */
export async function startLiveSandbox(): Promise<LiveSandbox> {
  const sandbox = await startSandbox({ port: 0, seed: 7 });
  const { url } = sandbox;
  const { companies } = await call(url, "GET", "/v1/companies");
  const companyId: string = companies[0].id;
  const scope = { "X-Company-Id": companyId };
  const { cardHolders } = await call(url, "GET", `/_sandbox/companies/${companyId}/card-holders`);
  const { cardBins } = await call(url, "GET", "/v1/card-bins", undefined, scope);
  const { card } = await call(
    url,
    "POST",
    "/v1/cards",
    { cardHolderId: cardHolders[0].id, name: "Docs sample card", category: "Other", bin: cardBins[0].bin },
    scope,
  );
  const { wallet } = await call(url, "POST", `/_sandbox/companies/${companyId}/wallets`, { currency: "USDT" });
  const { paymentRoute } = await call(url, "POST", `/_sandbox/companies/${companyId}/payment-routes`, {
    type: "onramp",
    force: true,
  });
  const { transactions } = await call(url, "GET", "/v1/card-spending-account/transactions", undefined, scope);
  const values = new Map<string, string>([
    ["companyId", companyId],
    ["cardHolderId", cardHolders[0].id],
    ["bin", cardBins[0].bin],
    ["cardId", card.id],
    ["walletId", wallet.id],
    ["routeId", paymentRoute.id],
    ["transactionId", transactions[0].transaction.id],
  ]);
  return { sandbox, url, values };
}

/** The operation's example with the live ids: path parameters, the company, and body fields of the same names. */
export function liveExample(operation: OperationExample, values: ReadonlyMap<string, string>): OperationExample {
  const swap = ([name, value]: [string, Json]): [string, Json] => [name, values.get(name) ?? value];
  let body = operation.body;
  if (body && typeof body.value === "object" && body.value !== null && !Array.isArray(body.value)) {
    const value = Object.fromEntries(Object.entries(body.value as JsonObject).map(swap));
    body = { ...body, value };
  }
  return {
    ...operation,
    companyId: operation.companyId === undefined ? undefined : values.get("companyId"),
    pathParams: operation.pathParams.map(swap),
    body,
  };
}

export interface Exchange {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  requestBody: string;
  status: number;
  responseBody: string;
}

export interface RecordingProxy {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/** A proxy to `upstream` that records every request and answer, passing both through unchanged. */
export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const target = new URL(upstream);
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const requestBody = Buffer.concat(chunks);
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
      },
      async (answer) => {
        const parts: Buffer[] = [];
        for await (const chunk of answer) parts.push(chunk as Buffer);
        const responseBody = Buffer.concat(parts);
        exchanges.push({
          method: incoming.method ?? "",
          url: incoming.url ?? "",
          headers: incoming.headers,
          requestBody: requestBody.toString("utf8"),
          status: answer.statusCode ?? 0,
          responseBody: responseBody.toString("utf8"),
        });
        const headers = { ...answer.headers };
        delete headers["transfer-encoding"];
        outgoing.writeHead(answer.statusCode ?? 502, { ...headers, "content-length": responseBody.length });
        outgoing.end(responseBody);
      },
    );
    forward.on("error", (error) => outgoing.writeHead(502).end(String(error)));
    forward.end(requestBody);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A request of an example, to change before sending: headers, path values, query and body. */
export interface MutableRequest {
  headers: Headers;
  query: URLSearchParams;
  body: string | undefined;
  setPath(name: string, value: string): void;
  target(): string;
}

/** The request a sample of `operation` sends, as a value a test can change. */
export function requestOf(operation: OperationExample, apiKey: string): MutableRequest {
  const pathValues = new Map(operation.pathParams.map(([name, value]) => [name, String(value)]));
  const headers = new Headers({ "X-API-Key": apiKey });
  if (operation.companyId !== undefined) headers.set("X-Company-Id", operation.companyId);
  if (operation.body) headers.set("Content-Type", "application/json");
  const query = new URLSearchParams(operation.queryParams.map(([name, value]) => [name, String(value)]));
  return {
    headers,
    query,
    body: operation.body ? JSON.stringify(operation.body.value) : undefined,
    setPath: (name, value) => pathValues.set(name, value),
    target: () => {
      const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
        encodeURIComponent(pathValues.get(name) ?? ""),
      );
      const search = query.toString();
      return search ? `${path}?${search}` : path;
    },
  };
}
