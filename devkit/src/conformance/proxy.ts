/**
 * `proxy`: forwards every request to the upstream unchanged and validates both directions against the
 * contract, as Prism's validation proxy does, with the checks verify uses. Bodies are piped both ways with
 * Node's backpressure (a client that reads slowly slows the upstream's sending, an upstream that does not
 * read slows the client's), never buffered whole: a copy of each body is kept only up to
 * MAX_VALIDATED_BODY_BYTES, and of all bodies in flight up to VALIDATION_BUDGET_BYTES; a body past either is
 * passed on unvalidated, with an info-level note. The exchange is judged after the answer has gone out, so the
 * checks add nothing to the request's time. Beyond Prism: an id first seen in one key's answers and then named
 * with another key (X-Company-Id or a path id) and answered 2xx is an isolation failure.
 *
 * Every exchange is settled exactly once, however it ends: answered, cut short by either side, timed out (no
 * byte from the upstream for `upstreamTimeoutMs`), refused, or cut by `close()`, which ends those in flight at
 * once. So a stop always finishes, with every exchange counted.
 */
import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { inert } from "../inert.ts";
import { checkedAllowedHosts, createBoundary } from "../sandbox/boundary.ts";
import { listen } from "./http.ts";
import { ForwardedExchange, type ForwardHost } from "./proxy/forward.ts";
import { TrafficJudge } from "./proxy/judge.ts";
import { Budget } from "./proxy/tap.ts";
import type { Answer, Failure } from "./types.ts";

export { MAX_TRACKED_IDS } from "./proxy/judge.ts";
export { MAX_VALIDATED_BODY_BYTES, VALIDATION_BUDGET_BYTES } from "./proxy/tap.ts";

/** Violations kept in memory at most (a long session keeps counting them, and reporting each). */
export const MAX_KEPT_VIOLATIONS = 1000;
/** How long the upstream may send nothing (no answer yet, or a body stalled) before the exchange times out. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;
/** How long a client's connection may stay idle (sending nothing, reading nothing) before it is closed. */
export const CLIENT_IDLE_TIMEOUT_MS = 60_000;

export interface ProxyOptions {
  upstream: string;
  host?: string;
  /**
   * Host names the proxy answers besides IP addresses, `localhost` and its own interface, as the sandbox's
   * `allowedHosts` (`.example.test` for that name and every name under it). The proxy applies the sandbox's
   * browser boundary (sandbox/boundary.ts) before forwarding: it rewrites `Host` to the upstream's, so without
   * it a page rebound to the proxy's address would read the control API through it.
   */
  allowedHosts?: readonly string[];
  port?: number;
  maxResponseTimeMs?: number;
  /** How long the upstream may send nothing before an exchange times out. Default 30 s. */
  upstreamTimeoutMs?: number;
  /** The contract; the devkit's own when omitted. */
  document: Record<string, unknown>;
  /** Called for each violation as it is found. */
  onViolation?: (failure: Failure) => void;
  /** Called with an info-level note: a body passed on unvalidated, an exchange cut or timed out. */
  onNote?: (note: string) => void;
}

export interface ContractProxy {
  url: string;
  port: number;
  /** The first MAX_KEPT_VIOLATIONS violations (every one goes to onViolation). */
  violations: Failure[];
  /** Violations by check id, every one counted. */
  counts: Map<string, number>;
  /** Error-level violations, every one counted. */
  errors(): number;
  /**
   * Requests forwarded, how many of them the contract has no operation for (passed through unjudged), how
   * many had a body passed on unvalidated, and how many were cut short or timed out; and the requests refused at
   * the browser boundary (another Host, another origin for the control API), never forwarded.
   */
  stats: { requests: number; unmatched: number; unvalidated: number; cut: number; refused: number };
  /** Resolves when every exchange received so far has been settled and judged. */
  settled(): Promise<void>;
  /** Stops listening, cuts the exchanges still in flight (each settled), and resolves once all are judged. */
  close(): Promise<void>;
}

/** The proxy's shared state: its upstream, the exchanges in flight, the judgments queued, the violations counted. */
class ValidatingProxy implements ForwardHost {
  readonly upstream: URL;
  readonly agent: HttpAgent | HttpsAgent;
  readonly send: typeof httpRequest;
  readonly prefix: string;
  readonly upstreamTimeoutMs: number;
  readonly budget = new Budget();
  readonly violations: Failure[] = [];
  readonly counts = new Map<string, number>();
  errors = 0;
  readonly stats = { requests: 0, unmatched: 0, unvalidated: 0, cut: 0, refused: 0 };
  readonly inFlight = new Set<(reason: string) => void>();
  private readonly judge: TrafficJudge;
  private readonly boundary: ReturnType<typeof createBoundary>;
  private pending: Promise<void> = Promise.resolve();
  /** Exchanges forwarded and not judged yet. */
  private open = 0;
  /** Called once no exchange is open. */
  private readonly idle = new Set<() => void>();

  private readonly options: ProxyOptions;
  constructor(options: ProxyOptions) {
    this.options = options;
    this.upstream = new URL(options.upstream);
    const secure = this.upstream.protocol === "https:";
    this.agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.send = secure ? (httpsRequest as typeof httpRequest) : httpRequest;
    this.prefix = this.upstream.pathname.replace(/\/+$/, "");
    this.upstreamTimeoutMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
    this.judge = new TrafficJudge({
      document: options.document,
      ...(options.maxResponseTimeMs !== undefined ? { maxResponseTimeMs: options.maxResponseTimeMs } : {}),
      upstreamOrigin: this.upstream.origin,
      prefix: this.prefix,
      report: (failure) => this.report(failure),
      onUnmatched: () => {
        this.stats.unmatched++;
      },
    });
    this.boundary = createBoundary(options.host ?? "127.0.0.1", checkedAllowedHosts(options.allowedHosts ?? []));
  }

  report(failure: Failure): void {
    // A plain object: the lazy curl getter of a judged exchange is read once, here.
    const plain = { ...failure };
    this.counts.set(plain.check, (this.counts.get(plain.check) ?? 0) + 1);
    if (plain.level === "error") this.errors++;
    if (this.violations.length < MAX_KEPT_VIOLATIONS) this.violations.push(plain);
    this.options.onViolation?.(plain);
  }

  note(request: IncomingMessage, text: string): void {
    this.options.onNote?.(`${request.method ?? "GET"} ${inert((request.url ?? "/").slice(0, 200))}: ${text}`);
  }

  /** The server's request handler: refused at the browser boundary, or forwarded as one exchange. */
  forward(request: IncomingMessage, response: ServerResponse): void {
    // Refused (403) before anything is forwarded, as the sandbox refuses it; what was sent is drained.
    if (this.boundary.refuse(request, response)) {
      this.stats.refused++;
      request.resume();
      return;
    }
    this.stats.requests++;
    this.open++;
    new ForwardedExchange(this, request, response);
  }

  judgeLater(request: IncomingMessage, requestBody: Buffer | undefined, answer: Answer | undefined): void {
    // After the answer has gone out: the checks add nothing to the request's time.
    setImmediate(() => {
      this.pending = this.pending.then(() => {
        try {
          if (answer) this.judge.judge(request, requestBody, answer);
        } catch (error) {
          this.report({
            check: "request_conformance",
            level: "warning",
            operationId: "(proxy)",
            method: request.method ?? "GET",
            path: inert(request.url ?? "/"),
            status: answer?.status || null,
            message: `the proxy could not judge this exchange: ${(error as Error).message}`,
          });
        }
        if (--this.open === 0) for (const wake of [...this.idle]) wake();
      });
    });
  }

  /** Resolves when every exchange received so far has been settled and judged. */
  settled(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.open === 0) return resolve();
      const wake = () => {
        this.idle.delete(wake);
        resolve();
      };
      this.idle.add(wake);
    }).then(() => this.pending);
  }

  /** Cuts the exchanges still in flight, each settled. */
  stopAll(): void {
    for (const stop of [...this.inFlight]) stop("the proxy stopped before the end of this exchange");
  }
}

export async function startProxy(options: ProxyOptions): Promise<ContractProxy> {
  const proxy = new ValidatingProxy(options);
  const server = createServer((request, response) => proxy.forward(request, response));
  server.keepAliveTimeout = 5_000;
  // A client that sends or reads nothing for this long is let go; a long upload or download that moves is not.
  server.timeout = CLIENT_IDLE_TIMEOUT_MS;
  server.requestTimeout = 0;
  const { url, port } = await listen(server, options.host, options.port);
  const settled = () => proxy.settled();
  return {
    url,
    port,
    violations: proxy.violations,
    counts: proxy.counts,
    errors: () => proxy.errors,
    stats: proxy.stats,
    settled,
    async close() {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.stopAll();
      server.closeAllConnections();
      await closing;
      await settled();
      proxy.agent.destroy();
    },
  };
}
