/**
 * The sandbox's HTTP handler (server.ts) answering a web `Request` with a web `Response`, in this process, with
 * no socket: the seam between the handler and whatever carries calls to it that is not the HTTP server. The
 * scenarios' calls (testmode/scenarios.ts) and partner-api-devkit/msw go through it. The handler sees a request
 * and a response of its own shape (what it and the test mode use of node:http's: method, url, headers, the body's
 * `data` and `end`, `writeHead`, `write`, `end`, `close`), built here from what Node and browsers both have, so this
 * runs in a browser tab too. An answer the handler streams (`streamRequests`) is a streamed body; a call a fault
 * drops is a network error (`Response.error()`), as a dropped connection is to `fetch`.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

type Listener = (...args: unknown[]) => void;

/** The few events the handler listens to or sends, on a map of its own (no node:events in a browser). */
class Events {
  private readonly listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  once(event: string, listener: Listener): this {
    const once: Listener = (...args) => {
      this.off(event, once);
      listener(...args);
    };
    (once as { inner?: Listener }).inner = listener;
    return this.on(event, once);
  }

  off(event: string, listener: Listener): this {
    const kept = (this.listeners.get(event) ?? []).filter(
      (each) => each !== listener && (each as { inner?: Listener }).inner !== listener,
    );
    this.listeners.set(event, kept);
    return this;
  }

  removeListener(event: string, listener: Listener): this {
    return this.off(event, listener);
  }

  emit(event: string, ...args: unknown[]): boolean {
    const listeners = this.listeners.get(event) ?? [];
    for (const listener of listeners) listener(...args);
    return listeners.length > 0;
  }
}

/** A call's request as the handler reads it: its body sent as one `data` once something listens, then `end`. */
class InProcessRequest extends Events {
  readonly rawHeaders: string[];
  readonly socket = {
    destroyed: false,
    destroy: () => {
      this.socket.destroyed = true;
    },
  };
  private flowing = false;

  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  private readonly body: Uint8Array | undefined;
  constructor(method: string, url: string, headers: Record<string, string>, body: Uint8Array | undefined) {
    super();
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.body = body;
    this.rawHeaders = Object.entries(headers).flat();
  }

  override on(event: string, listener: Listener): this {
    super.on(event, listener);
    if (event === "data" && !this.flowing) {
      this.flowing = true;
      queueMicrotask(() => {
        if (this.body !== undefined && this.body.length > 0) this.emit("data", this.body);
        this.emit("end");
      });
    }
    return this;
  }

  resume(): this {
    return this;
  }
}

const encoder = new TextEncoder();

/** A call's response as the handler writes it: collected, or streamed once the handler flushes its headers. */
class InProcessResponse extends Events {
  statusCode = 200;
  destroyed = false;
  headersSent = false;
  ended = false;
  writableLength = 0;
  private readonly headers: OutgoingHttpHeaders = {};
  private readonly chunks: string[] = [];
  private stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  private started!: (streamed: boolean) => void;
  /** Settles when the answer's head is known: at its end, or when its headers are flushed (a stream). */
  readonly head = new Promise<boolean>((resolve) => {
    this.started = resolve;
  });

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.headers[name.toLowerCase()] = value as string;
    return this;
  }

  getHeader(name: string): unknown {
    return this.headers[name.toLowerCase()];
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders): this {
    this.statusCode = status;
    for (const [name, value] of Object.entries(headers ?? {})) this.headers[name.toLowerCase()] = value;
    return this;
  }

  flushHeaders(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    this.started(true);
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.destroyed) return false;
    if (this.stream) this.stream.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    else this.chunks.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
    return true;
  }

  end(chunk?: string | Uint8Array): this {
    if (chunk !== undefined) this.write(chunk);
    this.ended = true;
    this.stream?.close();
    if (!this.headersSent) {
      this.headersSent = true;
      this.started(false);
    }
    this.emit("finish");
    this.close();
    return this;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    try {
      this.stream?.close();
    } catch {
      // Closed already.
    }
    this.close();
    return this;
  }

  private closed = false;
  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit("close");
  }

  /** The answer as a web Response: its collected text, or a stream of what the handler writes from now on. */
  response(streamed: boolean): Response {
    const headers = new Headers();
    for (const [name, value] of Object.entries(this.headers)) {
      if (value === undefined || name === "content-length" || name === "transfer-encoding") continue;
      if (Array.isArray(value)) for (const each of value) headers.append(name, String(each));
      else headers.set(name, String(value));
    }
    const status = this.statusCode;
    const empty = status === 204 || status === 304;
    if (!streamed) {
      const text = this.chunks.join("");
      return new Response(empty || text === "" ? null : text, { status, headers });
    }
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.stream = controller;
        for (const text of this.chunks.splice(0)) controller.enqueue(encoder.encode(text));
      },
      // The reader went away: the handler hears its client leave, as from a closed connection.
      cancel: () => {
        this.destroy();
      },
    });
    return new Response(body, { status, headers });
  }
}

/**
 * Answers `request` with the sandbox's handler in this process. `mark` sees the handler's request before the
 * handler does (the scenarios mark their own calls). A handler that returns without answering is a bug, thrown.
 */
export async function answerInProcess(
  listener: RequestListener,
  request: Request,
  mark?: (request: IncomingMessage) => void,
): Promise<Response> {
  const target = new URL(request.url);
  const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
  const headers: Record<string, string> = { host: target.host };
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body !== undefined) headers["content-length"] = String(body.length);
  else delete headers["content-length"];
  const inbound = new InProcessRequest(request.method, `${target.pathname}${target.search}`, headers, body);
  const incoming = inbound as unknown as IncomingMessage;
  mark?.(incoming);
  const outbound = new InProcessResponse();
  // Aborting the call (its signal) is its client leaving.
  const leave = () => outbound.destroy();
  request.signal?.addEventListener("abort", leave, { once: true });
  const handled = listener(incoming, outbound as unknown as ServerResponse);
  const streamed = await Promise.race([outbound.head, handled.then(() => undefined)]);
  if (streamed === undefined) await handled;
  request.signal?.removeEventListener("abort", leave);
  if (inbound.socket.destroyed) return Response.error();
  if (streamed === true) return outbound.response(true);
  if (!outbound.ended)
    throw new Error(`the sandbox's handler returned without answering ${request.method} ${inbound.url}`);
  return outbound.response(false);
}
