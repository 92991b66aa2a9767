/**
 * A webhook receiver for Node `http` servers and fetch-style (Request → Response) frameworks. It uses only
 * Web Crypto and structural types, so it runs in Node as well as in edge runtimes.
 */

import { createWebhookDeduper, type WebhookDeduper } from "./dedupe.ts";
import { secretList, type WebhookSecrets } from "./encoding.ts";
import { WebhookError, WebhookPayloadError, WebhookRawBodyError, WebhookSignatureError } from "./errors.ts";
import {
  isWebhookEventType,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  webhookEventTypes,
} from "./events.ts";
import { constructWebhookEventAsync } from "./web.ts";

/** The handlers, one per event type; an event without one is acknowledged and ignored. */
export type WebhookHandlers = {
  [K in WebhookEventType]?: (event: WebhookEventOf<K>) => unknown;
};

export type WebhookVerdict =
  | "handled"
  | "ignored"
  | "duplicate"
  | "bad_signature"
  | "bad_body"
  | "too_large"
  | "method_not_allowed"
  | "handler_failed";

export interface WebhookHandlerResult {
  /** The HTTP status answered: 2xx handled/ignored/duplicate, 4xx bad request, 5xx handler failure. */
  status: number;
  verdict: WebhookVerdict;
  /** The verified event, once the signature and envelope were good. */
  event?: WebhookEvent;
  /** Why the request was refused, or what the handler threw. */
  error?: unknown;
}

export interface WebhookHandlerOptions {
  /** The endpoint's signing secret, or several during a rotation. */
  secrets: WebhookSecrets;
  on: WebhookHandlers;
  /** Drops repeated deliveries by event id. Default: an in-memory deduper of the last 10 000 ids; `false` turns it off. */
  dedupe?: WebhookDeduper | false;
  /** Largest body read, in bytes (default 1 MiB; the source states no size). Larger bodies get 413. */
  maxBodyBytes?: number;
  /** Called once per request with what happened, for logging. Errors it throws are ignored. */
  onResult?: (result: WebhookHandlerResult) => void;
}

/** The parts of Node's `http.IncomingMessage` the handler uses (an Express/Koa request fits too). */
export interface NodeRequestLike {
  method?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** Set by body-parsing middleware: must then be the raw body (string or Buffer), never a parsed object. */
  body?: unknown;
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: "end" | "error", listener: (error?: Error) => void): unknown;
  removeAllListeners(event: string): unknown;
  resume(): unknown;
}

/** The parts of Node's `http.ServerResponse` the handler uses. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

export interface WebhookHandler {
  /** Fetch-style: answers a `Request` with a `Response`. */
  (request: Request): Promise<Response>;
  /** Node `http`: reads `req`, writes `res`. */
  (req: NodeRequestLike, res: NodeResponseLike): Promise<void>;
  fetch(request: Request): Promise<Response>;
  node(req: NodeRequestLike, res: NodeResponseLike): Promise<void>;
  /** The core, for frameworks that already hold the raw body: verify, parse, dedupe, dispatch. */
  handle(rawBody: string | Uint8Array, signature: string | null | undefined): Promise<WebhookHandlerResult>;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** A receiver's options, checked: what every request reads. */
interface Receiver {
  secrets: ReturnType<typeof secretList>;
  on: WebhookHandlers;
  maxBodyBytes: number;
  deduper: WebhookDeduper | undefined;
  onResult: WebhookHandlerOptions["onResult"];
}

/** Builds a receiver: reads the raw body (bounded), verifies `X-Signature`, dedupes by id, dispatches on `type`. */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  const receiver = checkedOptions(options);
  const fetchHandler = (request: Request) => answerFetch(receiver, request);
  const nodeHandler = (req: NodeRequestLike, res: NodeResponseLike) => answerNode(receiver, req, res);
  const handler = ((first: Request | NodeRequestLike, res?: NodeResponseLike) =>
    res === undefined ? fetchHandler(first as Request) : nodeHandler(first as NodeRequestLike, res)) as WebhookHandler;
  handler.fetch = fetchHandler;
  handler.node = nodeHandler;
  handler.handle = (rawBody, signature) => handle(receiver, rawBody, signature);
  return handler;
}

/** The options, each checked with an error naming it and what it takes. */
function checkedOptions(options: WebhookHandlerOptions): Receiver {
  if (!options || typeof options !== "object") throw new WebhookError("createWebhookHandler needs an options object");
  const secrets = secretList(options.secrets, "options.secrets");
  const on = options.on;
  if (!on || typeof on !== "object")
    throw new WebhookError("options.on must be an object of handlers keyed by event type");
  for (const [type, handler] of Object.entries(on)) {
    if (!isWebhookEventType(type)) {
      throw new WebhookError(
        `options.on has a handler for unknown event type "${type}"; known: ${webhookEventTypes.join(", ")}`,
      );
    }
    if (typeof handler !== "function")
      throw new WebhookError(`options.on["${type}"] must be a function, got ${typeof handler}`);
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new WebhookError(`options.maxBodyBytes must be a positive integer, got ${String(maxBodyBytes)}`);
  }
  const deduper = options.dedupe === false ? undefined : (options.dedupe ?? createWebhookDeduper());
  return { secrets, on, maxBodyBytes, deduper, onResult: options.onResult };
}

function report(receiver: Receiver, result: WebhookHandlerResult): WebhookHandlerResult {
  try {
    receiver.onResult?.(result);
  } catch {
    // A logging hook must not change the answer given to the sender.
  }
  return result;
}

/** The core: verify, parse, dedupe, dispatch. */
async function handle(
  receiver: Receiver,
  rawBody: string | Uint8Array,
  signature: string | null | undefined,
): Promise<WebhookHandlerResult> {
  let event: WebhookEvent;
  try {
    event = await constructWebhookEventAsync(rawBody, signature, receiver.secrets);
  } catch (error) {
    if (error instanceof WebhookSignatureError)
      return report(receiver, { status: 401, verdict: "bad_signature", error });
    if (error instanceof WebhookPayloadError) return report(receiver, { status: 400, verdict: "bad_body", error });
    return report(receiver, { status: 500, verdict: "handler_failed", error });
  }
  const run = receiver.on[event.type] as ((event: WebhookEvent) => unknown) | undefined;
  try {
    const work = async () => {
      if (!run) return "ignored" as const;
      await run(event);
      return "handled" as const;
    };
    const outcome = receiver.deduper
      ? await receiver.deduper.process(event.id, work)
      : { duplicate: false as const, value: await work() };
    return report(receiver, { status: 200, verdict: outcome.duplicate ? "duplicate" : outcome.value, event });
  } catch (error) {
    return report(receiver, { status: 500, verdict: "handler_failed", event, error });
  }
}

function answer(result: WebhookHandlerResult): { status: number; body: string } {
  const body: Record<string, unknown> = { verdict: result.verdict };
  if (result.event) body.id = result.event.id;
  // The handler's own error stays private; the kit's refusals say what was wrong with the request.
  if (result.status < 500 && result.error instanceof Error) body.error = result.error.message;
  return { status: result.status, body: JSON.stringify(body) };
}

function methodNotAllowed(receiver: Receiver, method: string | undefined): WebhookHandlerResult {
  return report(receiver, {
    status: 405,
    verdict: "method_not_allowed",
    error: new WebhookError(`webhooks are POSTed, got ${method}`),
  });
}

function tooLarge(receiver: Receiver): WebhookHandlerResult {
  return report(receiver, {
    status: 413,
    verdict: "too_large",
    error: new WebhookError(`the body is larger than maxBodyBytes (${receiver.maxBodyBytes} bytes)`),
  });
}

/** Fetch-style: a `Request` answered with a `Response`. */
async function answerFetch(receiver: Receiver, request: Request): Promise<Response> {
  const reply = (result: WebhookHandlerResult, headers: Record<string, string> = {}) => {
    const { status, body } = answer(result);
    return new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
  };
  if (request.method !== "POST") return reply(methodNotAllowed(receiver, request.method), { allow: "POST" });
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > receiver.maxBodyBytes) return reply(tooLarge(receiver));
  const body = await readLimited(request.body, receiver.maxBodyBytes);
  if (body === undefined) return reply(tooLarge(receiver));
  return reply(await handle(receiver, body, request.headers.get("x-signature")));
}

/** Node `http`: reads `req` (or the raw body middleware left on it), writes `res`. */
async function answerNode(receiver: Receiver, req: NodeRequestLike, res: NodeResponseLike): Promise<void> {
  const reply = (result: WebhookHandlerResult, headers: Record<string, string> = {}) => {
    const { status, body } = answer(result);
    res.statusCode = status;
    res.setHeader("content-type", "application/json");
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.end(body);
  };
  if (req.method !== "POST") {
    req.resume();
    return reply(methodNotAllowed(receiver, req.method), { allow: "POST" });
  }
  const header = req.headers["x-signature"];
  const signature = Array.isArray(header) ? undefined : header;
  if (req.body !== undefined) {
    // Body-parsing middleware ran first; only a raw body (express.raw, express.text) can be verified.
    if (typeof req.body === "string" || req.body instanceof Uint8Array)
      return reply(await handle(receiver, req.body, signature));
    return reply(
      report(receiver, {
        status: 500,
        verdict: "handler_failed",
        error: new WebhookRawBodyError("req.body", req.body),
      }),
    );
  }
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > receiver.maxBodyBytes) {
    req.resume();
    return reply(tooLarge(receiver), { connection: "close" });
  }
  const body = await readNodeLimited(req, receiver.maxBodyBytes).catch((): typeof ABORTED => ABORTED);
  // The sender went away mid-body (or sent a broken one): there is no one to answer, and nothing to verify.
  if (body === ABORTED) return;
  if (body === undefined) return reply(tooLarge(receiver), { connection: "close" });
  return reply(await handle(receiver, body, signature));
}

/** The whole body, or undefined once it grows past `limit` bytes (the rest is not read). */
async function readLimited(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | undefined> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return concat(chunks, size);
}

/** What `readNodeLimited` gives when the request stream failed (the client closed it, or broke its chunking). */
const ABORTED = Symbol("aborted");

function readNodeLimited(req: NodeRequestLike, limit: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    req.on("data", (chunk) => {
      const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
      size += bytes.byteLength;
      if (size > limit) {
        // Stop keeping the bytes but drain the socket, so the 413 can still be written.
        req.removeAllListeners("data");
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(bytes);
    });
    req.on("end", () => resolve(concat(chunks, size)));
    req.on("error", (error) => reject(error ?? new WebhookError("the request stream failed")));
  });
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
