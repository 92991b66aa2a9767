/**
 * The one loopback webhook receiver of the tests and the benchmarks: it records each delivery (its body, signature
 * and when it arrived) and answers with a scripted status, a status chosen per delivery, after a delay, or never
 * (a receiver that holds every request until the sender gives up).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Delivery {
  /** `performance.now()` when the delivery's body had arrived. */
  at: number;
  body: string;
  signature: string | undefined;
  contentType: string | undefined;
}

export interface ReceiverOptions {
  /**
   * How each delivery is answered: statuses in order (the last one ever after), a status chosen from the delivery,
   * or `"silent"`: never (the request is read and held open). Default: 200 to every delivery.
   */
  answer?: readonly number[] | ((delivery: Delivery) => number) | "silent";
  /** Real milliseconds to wait after a delivery's body before answering it. */
  delayMs?: number;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>/webhooks` */
  url: string;
  /** Every delivery whose body has arrived, in the order they arrived. */
  deliveries: Delivery[];
  /** Requests that have arrived (bodies still arriving included). */
  readonly requests: number;
  /** The most requests open at once. */
  readonly mostOpen: number;
  /** Closes the server and drops every open connection. */
  close(): Promise<void>;
}

/** Listens on a free loopback port; `statuses` is `{ answer: statuses }`. */
export async function startReceiver(options: ReceiverOptions | readonly number[] = {}): Promise<Receiver> {
  const { answer = [200], delayMs = 0 } = Array.isArray(options)
    ? { answer: options as readonly number[] }
    : (options as ReceiverOptions);
  const deliveries: Delivery[] = [];
  let requests = 0;
  let open = 0;
  let mostOpen = 0;
  const server = createServer(async (request, response) => {
    requests++;
    open++;
    mostOpen = Math.max(mostOpen, open);
    // Open until its answer is sent or its connection closes (one listener per response, none left on the socket).
    response.once("close", () => open--);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const signature = request.headers["x-signature"];
    const delivery: Delivery = {
      at: performance.now(),
      body: Buffer.concat(chunks).toString("utf8"),
      signature: Array.isArray(signature) ? signature[0] : signature,
      contentType: request.headers["content-type"],
    };
    deliveries.push(delivery);
    if (answer === "silent") return;
    const status =
      typeof answer === "function" ? answer(delivery) : answer[Math.min(deliveries.length - 1, answer.length - 1)]!;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (!response.destroyed) response.writeHead(status).end();
  });
  if (answer === "silent") {
    // No time limits of its own: it holds every request until the sender gives up.
    server.requestTimeout = 0;
    server.headersTimeout = 0;
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    deliveries,
    get requests() {
      return requests;
    },
    get mostOpen() {
      return mostOpen;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
