/**
 * Deliberately broken implementations for the conformance tests: a loopback server in front of a real
 * sandbox that forwards every request and lets a test break one thing on the way (a field's type, a status,
 * a content type, the credentials, the webhook secret, a delay). Everything it does not break is the real
 * sandbox's answer.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface FaultRequest {
  method: string;
  /** Path and query, e.g. /v1/cards?page=2 */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface FaultResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Fault {
  /** Changes the request before the sandbox sees it. */
  request?(request: FaultRequest): void;
  /** Answers the request instead of the sandbox, when it returns an answer. */
  intercept?(request: FaultRequest): Promise<FaultResponse | undefined>;
  /** Changes the sandbox's answer (status, headers, body) before the client sees it; may wait. */
  response?(request: FaultRequest, response: FaultResponse): void | Promise<void>;
}

export interface Faulty {
  url: string;
  close(): Promise<void>;
}

const DROPPED = new Set(["host", "content-length", "connection", "transfer-encoding", "keep-alive"]);

export async function startFaulty(upstream: string, fault: Fault): Promise<Faulty> {
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers))
      if (value !== undefined && !DROPPED.has(name)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    const request: FaultRequest = {
      method: incoming.method ?? "GET",
      url: incoming.url ?? "/",
      headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    fault.request?.(request);
    const answered = await fault.intercept?.(request);
    if (answered) {
      outgoing.writeHead(answered.status, answered.headers).end(answered.body);
      return;
    }
    const answer = await fetch(`${upstream}${request.url}`, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== "" ? { body: request.body } : {}),
    });
    const responseHeaders: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!DROPPED.has(name)) responseHeaders[name] = value;
    });
    const response: FaultResponse = { status: answer.status, headers: responseHeaders, body: await answer.text() };
    await fault.response?.(request, response);
    outgoing.writeHead(response.status, response.headers).end(response.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The path of a request without its query. */
export function pathOf(request: FaultRequest): string {
  return request.url.split("?")[0]!;
}

/** Rewrites a JSON body in place. */
export function editJson(response: FaultResponse, edit: (body: any) => void): void {
  const body = JSON.parse(response.body);
  edit(body);
  response.body = JSON.stringify(body);
}
