/**
 * verify's own webhook receiver: a loopback (or --webhook-host) HTTP server that keeps every delivery's raw
 * bytes and signature and answers 200, so the sender never retries. `/main` and `/other` tell the two
 * accounts' deliveries apart when verify registers the receiver itself (the sandbox's control API); any
 * other path counts as the main account's.
 *
 * What a sender can make it hold is bounded: one delivery's bytes (a larger one is answered 413 and its
 * connection closed, the rest never read), the deliveries kept (by count and by bytes in all: past either,
 * a delivery is answered 200 but only counted), and the time a request may take to arrive.
 */
import { createServer, type Server } from "node:http";
import { listen, parseJson } from "./http.ts";
import type { Delivery } from "./types.ts";

/** A delivery body over this is cut off and refused (the API description sets no size). */
export const MAX_DELIVERY_BYTES = 1024 * 1024;
/** Deliveries kept at most: a sender in a loop cannot exhaust memory. */
export const MAX_DELIVERIES = 10_000;
/** Bytes of deliveries kept at most, in all (each is kept as text and parsed: about four times this in memory). */
export const MAX_DELIVERY_BYTES_KEPT = 32 * 1024 * 1024;
/** How long a delivery may take to arrive, headers and body. */
export const DELIVERY_READ_TIMEOUT_MS = 30_000;

export interface WebhookReceiver {
  /** Base URL, e.g. http://127.0.0.1:43210 (no trailing slash). */
  url: string;
  deliveries: Delivery[];
  /** Deliveries answered but not kept: over MAX_DELIVERIES or MAX_DELIVERY_BYTES_KEPT, or too large. */
  notKept: number;
  /** Called for each delivery as it arrives. */
  onDelivery?: (delivery: Delivery) => void;
  /**
   * Resolves once `count` deliveries `accept` took have arrived, or after `ms`. `accept` is called once per
   * delivery, in order (those already there first), so waiting costs one call per delivery.
   */
  waitFor(accept: (delivery: Delivery) => boolean, count: number, ms: number, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(options: { host?: string; port?: number } = {}): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  let keptBytes = 0;
  const waiters = new Set<() => void>();
  const receiver: Partial<WebhookReceiver> = { deliveries, notKept: 0 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(request.headers["content-length"]);
    // Answered, then the connection closed: the rest of the body is never read.
    const tooLarge = () => {
      receiver.notKept!++;
      response.writeHead(413, { connection: "close" }).end(() => request.socket.destroy());
    };
    if (declared > MAX_DELIVERY_BYTES) return tooLarge();
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DELIVERY_BYTES) {
        chunks.length = 0;
        if (!response.headersSent) tooLarge();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      if (size > MAX_DELIVERY_BYTES) return;
      response.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
      if (request.method !== "POST") return;
      if (deliveries.length >= MAX_DELIVERIES || keptBytes + size > MAX_DELIVERY_BYTES_KEPT) {
        receiver.notKept!++;
        return;
      }
      keptBytes += size;
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
  server.headersTimeout = 10_000;
  server.requestTimeout = DELIVERY_READ_TIMEOUT_MS;
  receiver.url = (await listen(server, options.host, options.port)).url;
  receiver.waitFor = (accept, count, ms, signal) =>
    new Promise<void>((resolve) => {
      let checked = 0;
      let accepted = 0;
      const check = () => {
        while (checked < deliveries.length) if (accept(deliveries[checked++]!)) accepted++;
        if (accepted >= count || signal?.aborted) finish();
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
