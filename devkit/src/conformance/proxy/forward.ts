/**
 * One exchange through the proxy: the request piped to the upstream and its answer piped back, a copy of each
 * body kept as it streams past (tap.ts), and the exchange settled exactly once however it ends (answered, cut by
 * either side, timed out, refused, or stopped by the proxy's close()). Its judgment is the host's to queue.
 */
import type {
  ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  IncomingMessage,
  ServerResponse,
} from "node:http";
import type { Agent as HttpsAgent } from "node:https";
import { describeFetchError, parseJson } from "../http.ts";
import type { Answer } from "../types.ts";
import { forwardedRequestHeaders, forwardedResponseHeaders } from "./headers.ts";
import { type Budget, Tap } from "./tap.ts";

/**
 * How an exchange ended. `failed`: the upstream gave no whole answer (refused, silent past the timeout, closed
 * mid-answer), judged as no answer (not_a_server_error). `cut`: the client left, or the proxy stopped; not the
 * upstream's doing, so only what arrived whole is judged (nothing, when no answer had begun).
 */
export interface Outcome {
  status: number;
  headers: Answer["headers"];
  failed?: string;
  cut?: string;
}

/** What an exchange needs of the proxy that forwards it. */
export interface ForwardHost {
  readonly upstream: URL;
  readonly agent: HttpAgent | HttpsAgent;
  readonly send: typeof httpRequest;
  /** The upstream's path, without a trailing slash: put before each request's path. */
  readonly prefix: string;
  readonly upstreamTimeoutMs: number;
  readonly budget: Budget;
  readonly stats: { unvalidated: number; cut: number };
  /** How to stop each exchange still in flight, for close(). */
  readonly inFlight: Set<(reason: string) => void>;
  note(request: IncomingMessage, text: string): void;
  /** Judges a settled exchange after its answer has gone out (no answer: nothing to judge, only counted). */
  judgeLater(request: IncomingMessage, requestBody: Buffer | undefined, answer: Answer | undefined): void;
}

function answerHeaders(from: IncomingMessage): Answer["headers"] {
  return {
    get(name: string): string | null {
      const value = from.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

export class ForwardedExchange {
  private readonly started = performance.now();
  private readonly requestTap: Tap;
  private readonly answerTap: Tap;
  private readonly hadBody: boolean;
  private readonly outgoing: ClientRequest;
  private incoming: IncomingMessage | undefined;
  private done = false;
  /** For close(): the proxy stops, whatever this exchange was waiting for. */
  private readonly stop = (reason: string) => this.end({ ...this.sofar(), cut: reason });

  private readonly host: ForwardHost;
  private readonly request: IncomingMessage;
  private readonly response: ServerResponse;
  constructor(host: ForwardHost, request: IncomingMessage, response: ServerResponse) {
    this.host = host;
    this.request = request;
    this.response = response;
    this.requestTap = new Tap(host.budget);
    this.answerTap = new Tap(host.budget);
    this.hadBody =
      request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined;
    const { upstream } = host;
    this.outgoing = host.send({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: `${host.prefix}${request.url ?? "/"}`,
      headers: forwardedRequestHeaders(request.headers, upstream.host),
      agent: host.agent,
      // Idle time on the upstream's socket: waiting for the answer, or for the next byte of its body.
      timeout: host.upstreamTimeoutMs,
    });
    host.inFlight.add(this.stop);
    this.pipeRequest();
    this.outgoing.on("timeout", () => this.upstreamSilent());
    this.outgoing.on("response", (answer) => this.pipeAnswer(answer));
    this.outgoing.on("error", (error) => this.upstreamFailed(error));
    // The client left before the whole answer was sent: the upstream's side is let go too.
    response.on("close", () => {
      if (response.writableFinished || this.done) return;
      this.outgoing.destroy();
      this.settle({
        ...this.sofar(),
        cut: `the client closed the connection before ${this.incoming ? "the end of the answer" : "an answer"}`,
      });
    });
  }

  /** The answer's status and headers so far (0 and none before it began). */
  private sofar(): Outcome {
    return {
      status: this.incoming?.statusCode ?? 0,
      headers: this.incoming ? answerHeaders(this.incoming) : new Headers(),
    };
  }

  private pipeRequest(): void {
    this.request.on("data", (chunk: Buffer) => this.requestTap.add(chunk));
    this.request.pipe(this.outgoing);
    this.request.on("error", () => this.outgoing.destroy());
  }

  private upstreamSilent(): void {
    // Waiting on a client that reads slowly is not the upstream's silence (the client's own idle limit holds).
    if (this.incoming && this.response.writableNeedDrain) return;
    const seconds = this.host.upstreamTimeoutMs / 1000;
    this.end({
      ...this.sofar(),
      failed: this.incoming
        ? `the upstream sent nothing for ${seconds} s in the middle of its answer`
        : `the upstream did not answer within ${seconds} s`,
    });
  }

  private pipeAnswer(answer: IncomingMessage): void {
    const { response } = this;
    this.incoming = answer;
    response.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedResponseHeaders(answer));
    answer.on("data", (chunk: Buffer) => this.answerTap.add(chunk));
    answer.pipe(response);
    answer.on("error", () => undefined);
    answer.on("close", () => {
      if (answer.complete) return;
      response.destroy();
      this.settle({ ...this.sofar(), failed: "the upstream closed the connection before the end of its answer" });
    });
    response.on("finish", () => this.settle(this.sofar()));
  }

  private upstreamFailed(error: Error): void {
    if (this.done) return;
    const { response } = this;
    const reason = describeFetchError(error);
    if (this.incoming) {
      response.destroy();
      this.settle({
        ...this.sofar(),
        failed: `the upstream connection failed in the middle of its answer (${reason})`,
      });
      return;
    }
    if (!response.headersSent) {
      response.writeHead(502, { "content-type": "application/problem+json" });
      response.end(
        JSON.stringify({
          title: "Bad gateway",
          status: 502,
          detail: `partner-api proxy: the upstream did not answer (${reason})`,
        }),
      );
    } else response.destroy();
    this.settle({ status: 0, headers: new Headers(), failed: reason });
  }

  /** Ends the exchange from outside: the client is told (504 when no answer began), the upstream let go. */
  private end(outcome: Outcome): void {
    const { response } = this;
    this.settle(outcome);
    this.outgoing.destroy();
    if (!response.headersSent && !response.destroyed) {
      const detail = `partner-api proxy: ${outcome.failed ?? outcome.cut}`;
      response.writeHead(504, { "content-type": "application/problem+json", connection: "close" });
      response.end(JSON.stringify({ title: "Gateway timeout", status: 504, detail }));
    } else response.destroy();
  }

  /** Ends the exchange once, however it ended, and hands it to the host to judge. */
  private settle(outcome: Outcome): void {
    if (this.done) return;
    this.done = true;
    const { host, request, requestTap, answerTap } = this;
    host.inFlight.delete(this.stop);
    const ms = performance.now() - this.started;
    const requestBody = this.hadBody ? requestTap.body() : undefined;
    const unvalidated = [
      this.hadBody && requestTap.dropped !== undefined
        ? `the request body (${requestTap.size} bytes, ${requestTap.dropped})`
        : "",
      answerTap.dropped !== undefined ? `the answer body (${answerTap.size} bytes, ${answerTap.dropped})` : "",
    ].filter(Boolean);
    if (unvalidated.length > 0) {
      host.stats.unvalidated++;
      host.note(request, `${unvalidated.join(" and ")} passed on unvalidated`);
    }
    const ended = outcome.failed ?? outcome.cut;
    if (ended !== undefined) {
      host.stats.cut++;
      host.note(request, ended);
    }
    const answer = this.answerOf(outcome, ms);
    requestTap.release();
    answerTap.release();
    host.judgeLater(request, requestBody, answer);
  }

  /** The answer to judge; none when the exchange was cut before any answer began (the client left, the proxy stopped). */
  private answerOf(outcome: Outcome, ms: number): Answer | undefined {
    if (outcome.cut !== undefined && outcome.status === 0) return undefined;
    if (outcome.failed !== undefined) return { status: 0, headers: new Headers(), text: "", ms, error: outcome.failed };
    const body = outcome.cut === undefined ? this.answerTap.body() : undefined;
    const text = body?.toString("utf8") ?? "";
    return {
      status: outcome.status,
      headers: outcome.headers,
      text,
      ms,
      ...(body !== undefined
        ? parseJson(text)
        : { unread: outcome.cut ?? `the body passed on unvalidated (${this.answerTap.dropped})` }),
    };
  }
}
