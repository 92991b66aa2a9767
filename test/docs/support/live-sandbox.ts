/**
 * A sandbox for the docs' samples and error cases: every new account holds the records the contract's examples
 * name (devkit/src/sandbox/flows/examples.ts), so a sample runs exactly as the docs display it, nothing swapped.
 * A recording proxy in front of it lets a test see exactly what a sample sent and what it got back.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { type Sandbox, startSandbox } from "partner-api-devkit/sandbox";
import type { OperationExample } from "../../../scripts/lib/docs/samples.ts";

export const LIVE_API_KEY = "sk_test_docs_samples";

export interface LiveSandbox {
  sandbox: Sandbox;
  url: string;
}

/** Starts a sandbox (seed 7) on a free loopback port. */
export async function startLiveSandbox(): Promise<LiveSandbox> {
  const sandbox = await startSandbox({ port: 0, seed: 7 });
  return { sandbox, url: sandbox.url };
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
