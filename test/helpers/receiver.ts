/** A loopback webhook receiver for tests: it records each delivery and answers with a scripted status. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Delivery {
  /** `performance.now()` when the delivery's body had arrived. */
  at: number;
  body: string;
  signature: string | undefined;
  contentType: string | undefined;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>/webhooks` */
  url: string;
  deliveries: Delivery[];
  /** Closes the server and its open connections. */
  close(): Promise<void>;
}

/** Listens on a free loopback port; answers the i-th delivery with `statuses[i]` (the last one forever after). */
export async function startReceiver(statuses: number[]): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const signature = request.headers["x-signature"];
    deliveries.push({
      at: performance.now(),
      body: Buffer.concat(chunks).toString("utf8"),
      signature: Array.isArray(signature) ? signature[0] : signature,
      contentType: request.headers["content-type"],
    });
    response.writeHead(statuses[Math.min(deliveries.length - 1, statuses.length - 1)]!).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    deliveries,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SilentReceiver {
  /** `http://127.0.0.1:<port>/webhooks` */
  url: string;
  /** Requests that have arrived (none is ever answered). */
  requests: number;
  /** The most requests open at once. */
  mostOpen: number;
  /** Closes the server and drops every open connection. */
  close(): Promise<void>;
}

/** Listens on a free loopback port, reads each request and never answers it (the attack of a silent receiver). */
export async function startSilentReceiver(): Promise<SilentReceiver> {
  let open = 0;
  const receiver = { url: "", requests: 0, mostOpen: 0, close: () => Promise.resolve() };
  const server = createServer((request) => {
    receiver.requests++;
    open++;
    receiver.mostOpen = Math.max(receiver.mostOpen, open);
    request.socket.once("close", () => open--);
    request.resume();
  });
  // No time limits of its own: it holds every request until the sender gives up.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
