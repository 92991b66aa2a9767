/**
 * verify's own webhook receiver: a loopback (or --webhook-host) HTTP server that keeps every delivery's raw
 * bytes and signature and answers 200, so the sender never retries. `/main` and `/other` tell the two
 * accounts' deliveries apart when verify registers the receiver itself (the sandbox's control API); any
 * other path counts as the main account's.
 */
import { createServer, type Server } from "node:http";
import { listen, parseJson } from "./http.ts";
import type { Delivery } from "./types.ts";

/** A delivery body over this is cut off and refused (the API description sets no size). */
export const MAX_DELIVERY_BYTES = 1024 * 1024;
/** Deliveries kept at most: a sender in a loop cannot exhaust memory. */
export const MAX_DELIVERIES = 10_000;

export interface WebhookReceiver {
  /** Base URL, e.g. http://127.0.0.1:43210 (no trailing slash). */
  url: string;
  deliveries: Delivery[];
  /** Called for each delivery as it arrives. */
  onDelivery?: (delivery: Delivery) => void;
  /** Resolves once `count` deliveries matching `accept` have arrived, or after `ms`. */
  waitFor(accept: (delivery: Delivery) => boolean, count: number, ms: number, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(options: { host?: string; port?: number } = {}): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const waiters = new Set<() => void>();
  const receiver: Partial<WebhookReceiver> = { deliveries };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_DELIVERY_BYTES) chunks.push(chunk);
    });
    request.on("end", () => {
      if (size > MAX_DELIVERY_BYTES) {
        response.writeHead(413).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
      if (request.method !== "POST" || deliveries.length >= MAX_DELIVERIES) return;
      const raw = Buffer.concat(chunks).toString("utf8");
      const signature = request.headers["x-signature"];
      const path = (request.url ?? "/").split("?")[0]!;
      const delivery: Delivery = {
        account: path.startsWith("/other") ? "other" : "main",
        path,
        signature: Array.isArray(signature) ? signature[0] : signature,
        contentType: request.headers["content-type"],
        raw,
        ...parseJson(raw),
      };
      deliveries.push(delivery);
      receiver.onDelivery?.(delivery);
      for (const wake of waiters) wake();
    });
  });
  receiver.url = (await listen(server, options.host, options.port)).url;
  receiver.waitFor = (accept, count, ms, signal) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (deliveries.filter(accept).length >= count || signal?.aborted) finish();
      };
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(check);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      waiters.add(check);
      signal?.addEventListener("abort", finish, { once: true });
      check();
    });
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver as WebhookReceiver;
}
