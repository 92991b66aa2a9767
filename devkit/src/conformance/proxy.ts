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
import { createHash } from "node:crypto";
import {
  type ClientRequest,
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { ContractRouter, type Issue, type Operation } from "../contract/router.ts";
import { inert } from "../inert.ts";
import { checkedAllowedHosts, createBoundary } from "../sandbox/boundary.ts";
import { CHECKS, type CheckContext, type ResponseCheck, toFailure } from "./checks.ts";
import { contractExampleIds } from "./example-ids.ts";
import { curlLine, describeFetchError, listen, parseJson } from "./http.ts";
import type { Answer, Exchange, Failure, Probe } from "./types.ts";

/** Bodies up to this size are kept for validation; a larger one passes through unvalidated. */
export const MAX_VALIDATED_BODY_BYTES = 1024 * 1024;
/** Bytes kept for validation by every exchange in flight together; past it, bodies pass through unvalidated. */
export const VALIDATION_BUDGET_BYTES = 64 * 1024 * 1024;
/** Violations kept in memory at most (a long session keeps counting them, and reporting each). */
export const MAX_KEPT_VIOLATIONS = 1000;
/** Ids remembered for the isolation check at most (the oldest are forgotten first). */
export const MAX_TRACKED_IDS = 100_000;
/** How long the upstream may send nothing (no answer yet, or a body stalled) before the exchange times out. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;
/** How long a client's connection may stay idle (sending nothing, reading nothing) before it is closed. */
export const CLIENT_IDLE_TIMEOUT_MS = 60_000;

/** Checks that judge traffic: not positive_data_acceptance (real traffic names ids that need not exist). */
const TRAFFIC_CHECKS = new Set([
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_schema_conformance",
  "response_headers_conformance",
  "negative_data_rejection",
  "missing_required_header",
  "ignored_auth",
  "max_response_time",
  "account_isolation",
  "request_conformance",
]);

/**
 * Headers that belong to one connection, not to the message (RFC 9110 7.6.1, and the older Keep-Alive,
 * Proxy-Connection, Proxy-Authenticate and Proxy-Authorization): never forwarded either way, nor the headers
 * a Connection header names. Transfer-Encoding is the connection's framing: each side frames its own.
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);
const ID_PARAMETERS = new Set(["X-Company-Id", "cardId", "cardHolderId", "routeId", "walletId", "transactionId"]);

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

function header(message: IncomingMessage, name: string): string | undefined {
  const value = message.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function fingerprint(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** The names a Connection header lists, lower case: hop-by-hop for this message too. */
function connectionTokens(value: string | string[] | undefined): Set<string> {
  const tokens = new Set<string>();
  for (const part of (Array.isArray(value) ? value.join(",") : (value ?? "")).split(","))
    if (part.trim()) tokens.add(part.trim().toLowerCase());
  return tokens;
}

/** The request's headers to forward: the end-to-end ones, Host set to the upstream's. */
function forwardedRequestHeaders(headers: IncomingHttpHeaders, host: string): Record<string, string | string[]> {
  const named = connectionTokens(headers.connection);
  const forwarded: Record<string, string | string[]> = Object.create(null);
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    forwarded[name] = value;
  }
  forwarded.host = host;
  return forwarded;
}

/** The answer's headers to pass on, as raw name/value pairs (case and repeats kept): the end-to-end ones. */
function forwardedResponseHeaders(incoming: IncomingMessage): string[] {
  const named = connectionTokens(incoming.headers.connection);
  const raw = incoming.rawHeaders;
  const kept: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    kept.push(raw[index]!, raw[index + 1]!);
  }
  return kept;
}

/** Ids of the objects an answer describes: every string under a property named `id`. Walked with a list. */
function idsIn(value: unknown, into: string[]): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === "id" && typeof child === "string") into.push(child);
      else pending.push(child);
    }
  }
}

/** Bytes every exchange in flight keeps for validation, together. */
class Budget {
  private used = 0;
  take(bytes: number): boolean {
    if (this.used + bytes > VALIDATION_BUDGET_BYTES) return false;
    this.used += bytes;
    return true;
  }
  give(bytes: number): void {
    this.used -= bytes;
  }
}

/** A copy of one body as it streams past, kept while it fits under the caps. */
class Tap {
  private chunks: Buffer[] = [];
  private reserved = 0;
  size = 0;
  /** Why the copy was let go (the body passes unvalidated); undefined while it is whole. */
  dropped: string | undefined;

  private readonly budget: Budget;
  constructor(budget: Budget) {
    this.budget = budget;
  }

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.dropped !== undefined) return;
    if (this.size > MAX_VALIDATED_BODY_BYTES) return this.drop(`over ${MAX_VALIDATED_BODY_BYTES / 1024 / 1024} MiB`);
    if (!this.budget.take(chunk.length))
      return this.drop(`the proxy held ${VALIDATION_BUDGET_BYTES / 1024 / 1024} MiB of bodies in flight`);
    this.reserved += chunk.length;
    this.chunks.push(chunk);
  }

  private drop(reason: string): void {
    this.dropped = reason;
    this.release();
  }

  /** The body, when it was kept whole. */
  body(): Buffer | undefined {
    return this.dropped === undefined ? Buffer.concat(this.chunks) : undefined;
  }

  release(): void {
    this.budget.give(this.reserved);
    this.reserved = 0;
    this.chunks = [];
  }
}

/**
 * How an exchange ended. `failed`: the upstream gave no whole answer (refused, silent past the timeout, closed
 * mid-answer), judged as no answer (not_a_server_error). `cut`: the client left, or the proxy stopped; not the
 * upstream's doing, so only what arrived whole is judged (nothing, when no answer had begun).
 */
interface Outcome {
  status: number;
  headers: Answer["headers"];
  failed?: string;
  cut?: string;
}

/** What kind of request the client sent, from its own validation: it decides what the answer must be. */
function kindOf(operation: Operation, hasKey: boolean, issues: Issue[]): Probe["kind"] {
  if (operation.needsApiKey && !hasKey) return "no-auth";
  if (issues.some((issue) => issue.location[0] === "header" && / is required$/.test(issue.message)))
    return "missing-header";
  return issues.length > 0 ? "negative" : "positive";
}

export async function startProxy(options: ProxyOptions): Promise<ContractProxy> {
  const upstream = new URL(options.upstream);
  const secure = upstream.protocol === "https:";
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const prefix = upstream.pathname.replace(/\/+$/, "");
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const router = new ContractRouter([{ api: "partner", document: options.document }]);
  const checks = CHECKS.filter(
    (check): check is ResponseCheck => check.target === "response" && TRAFFIC_CHECKS.has(check.id),
  );
  const context: CheckContext = {
    router,
    ...(options.maxResponseTimeMs !== undefined ? { maxResponseTimeMs: options.maxResponseTimeMs } : {}),
  };
  const violations: Failure[] = [];
  const stats = { requests: 0, unmatched: 0, unvalidated: 0, cut: 0, refused: 0 };
  const budget = new Budget();
  /** id → fingerprint of the key whose answer named it first. */
  const owners = new Map<string, string>();
  // The contract examples' ids are every sandbox account's own (seeded): they prove nothing about isolation.
  const shared = contractExampleIds(options.document);
  let pending: Promise<void> = Promise.resolve();
  /** Exchanges forwarded and not judged yet. */
  let open = 0;
  /** How to stop each exchange still in flight, for close(). */
  const inFlight = new Set<(reason: string) => void>();
  /** Called once no exchange is open. */
  const idle = new Set<() => void>();

  const counts = new Map<string, number>();
  let errors = 0;
  const report = (failure: Failure) => {
    // A plain object: the lazy curl getter of a judged exchange is read once, here.
    const plain = { ...failure };
    counts.set(plain.check, (counts.get(plain.check) ?? 0) + 1);
    if (plain.level === "error") errors++;
    if (violations.length < MAX_KEPT_VIOLATIONS) violations.push(plain);
    options.onViolation?.(plain);
  };
  const note = (request: IncomingMessage, text: string) =>
    options.onNote?.(`${request.method ?? "GET"} ${inert((request.url ?? "/").slice(0, 200))}: ${text}`);

  function judge(request: IncomingMessage, requestBody: Buffer | undefined, answer: Answer): void {
    const url = new URL(request.url ?? "/", "http://proxy.invalid");
    const method = request.method ?? "GET";
    const match = router.match(method, url.pathname);
    const apiKey = header(request, "x-api-key") || undefined;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      if (value !== undefined && !["host", "content-length", "connection", "transfer-encoding"].includes(name))
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
    const text = requestBody?.toString("utf8");
    const reproduce = {
      method,
      url: `${upstream.origin}${prefix}${request.url ?? "/"}`,
      headers,
      ...(text ? { body: text } : {}),
      account: apiKey ? ("main" as const) : ("none" as const),
    };
    if (match.kind !== "operation") {
      stats.unmatched++;
      if (url.pathname.startsWith("/_sandbox/")) return;
      report({
        check: "request_conformance",
        level: "warning",
        operationId: "(none)",
        method,
        path: url.pathname,
        status: answer.status || null,
        message:
          match.kind === "no-path"
            ? `${url.pathname} is no path of the contract`
            : `${match.path} has no ${method} operation in the contract`,
        curl: curlLine(reproduce),
      });
      return;
    }
    const { operation } = match;
    const issues: Issue[] = router.validateParameters(operation, {
      path: match.pathParams,
      query: url.searchParams,
      headers: request.headers,
    }).issues;
    if (operation.requestBody && requestBody && requestBody.length > 0) {
      const mediaType = (header(request, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (!operation.requestBody.mediaTypes.has(mediaType))
        issues.push({
          location: ["header", "Content-Type"],
          message: `the body's Content-Type ${mediaType || "(none)"} is not declared`,
        });
      else {
        const parsed = parseJson(requestBody.toString("utf8"));
        if (parsed.jsonError !== undefined)
          issues.push({ location: ["body"], message: `the body is not JSON: ${parsed.jsonError}` });
        else issues.push(...router.validateBody(operation, mediaType, parsed.json));
      }
    } else if (operation.requestBody?.required && requestBody !== undefined) {
      issues.push({ location: ["body"], message: "the request body is required" });
    }
    const kind = kindOf(operation, apiKey !== undefined, issues);
    const probe: Probe = {
      operation,
      operationId: operation.operationId,
      method,
      path: operation.path,
      url: reproduce.url,
      headers,
      ...(text ? { body: text } : {}),
      kind,
      label: issues.length > 0 ? issues.map((issue) => issue.message).join("; ") : "traffic",
      account: reproduce.account,
    };
    // The curl line is written only for an exchange that broke something: most break nothing.
    let curl: string | undefined;
    const base = {
      operationId: operation.operationId,
      method,
      path: operation.path,
      status: answer.error === undefined ? answer.status : null,
      label: probe.label,
      get curl() {
        curl ??= curlLine(probe);
        return curl;
      },
    };
    for (const issue of issues)
      report({
        check: "request_conformance",
        level: "warning",
        ...base,
        message: `the request breaks the contract: ${issue.message}`,
        ...(issue.rule ? { rule: issue.rule } : {}),
      });
    // Isolation: an id another key's answers named first, used with this key and answered 2xx.
    const owner = apiKey ? fingerprint(apiKey) : undefined;
    const named = operation.parameters
      .filter((parameter) => ID_PARAMETERS.has(parameter.name))
      .map((parameter) =>
        parameter.in === "path"
          ? match.pathParams[parameter.name]
          : parameter.in === "header"
            ? header(request, parameter.name.toLowerCase())
            : undefined,
      )
      .filter((value): value is string => typeof value === "string");
    if (owner && answer.status >= 200 && answer.status < 300) {
      for (const id of named) {
        if (shared.has(id)) continue;
        const first = owners.get(id);
        if (first !== undefined && first !== owner)
          report({
            check: "account_isolation",
            level: "error",
            ...base,
            message: `${id} was first seen in another API key's answers, and this key's request naming it was answered ${answer.status}, not 403 or 404`,
          });
      }
      const seen: string[] = [];
      idsIn(answer.json, seen);
      for (const id of [...named, ...seen]) {
        if (owners.has(id) || shared.has(id)) continue;
        if (owners.size >= MAX_TRACKED_IDS) owners.delete(owners.keys().next().value!);
        owners.set(id, owner);
      }
    }
    const exchange: Exchange = { probe, answer };
    for (const check of checks)
      for (const finding of check.run(exchange, context)) report(toFailure(check, base, finding));
  }

  const boundary = createBoundary(options.host ?? "127.0.0.1", checkedAllowedHosts(options.allowedHosts ?? []));

  function forward(request: IncomingMessage, response: ServerResponse): void {
    // Refused (403) before anything is forwarded, as the sandbox refuses it; what was sent is drained.
    if (boundary.refuse(request, response)) {
      stats.refused++;
      request.resume();
      return;
    }
    stats.requests++;
    open++;
    const started = performance.now();
    const requestTap = new Tap(budget);
    const answerTap = new Tap(budget);
    let incoming: IncomingMessage | undefined;
    let done = false;
    const hadBody =
      request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined;
    const outgoing: ClientRequest = send({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: `${prefix}${request.url ?? "/"}`,
      headers: forwardedRequestHeaders(request.headers, upstream.host),
      agent,
      // Idle time on the upstream's socket: waiting for the answer, or for the next byte of its body.
      timeout: upstreamTimeoutMs,
    });

    /** Ends the exchange once, however it ended, and queues its judgment. */
    const settle = (outcome: Outcome) => {
      if (done) return;
      done = true;
      inFlight.delete(stop);
      const ms = performance.now() - started;
      const requestBody = hadBody ? requestTap.body() : undefined;
      const unvalidated = [
        hadBody && requestTap.dropped !== undefined
          ? `the request body (${requestTap.size} bytes, ${requestTap.dropped})`
          : "",
        answerTap.dropped !== undefined ? `the answer body (${answerTap.size} bytes, ${answerTap.dropped})` : "",
      ].filter(Boolean);
      if (unvalidated.length > 0) {
        stats.unvalidated++;
        note(request, `${unvalidated.join(" and ")} passed on unvalidated`);
      }
      const ended = outcome.failed ?? outcome.cut;
      if (ended !== undefined) {
        stats.cut++;
        note(request, ended);
      }
      // Cut before any answer began (the client left, the proxy stopped): there is nothing to judge.
      const judged = outcome.cut === undefined || outcome.status !== 0;
      let answer: Answer | undefined;
      if (!judged) answer = undefined;
      else if (outcome.failed !== undefined)
        answer = { status: 0, headers: new Headers(), text: "", ms, error: outcome.failed };
      else {
        const body = outcome.cut === undefined ? answerTap.body() : undefined;
        const text = body?.toString("utf8") ?? "";
        answer = {
          status: outcome.status,
          headers: outcome.headers,
          text,
          ms,
          ...(body !== undefined
            ? parseJson(text)
            : { unread: outcome.cut ?? `the body passed on unvalidated (${answerTap.dropped})` }),
        };
      }
      requestTap.release();
      answerTap.release();
      // After the answer has gone out: the checks add nothing to the request's time.
      setImmediate(() => {
        pending = pending.then(() => {
          try {
            if (answer) judge(request, requestBody, answer);
          } catch (error) {
            report({
              check: "request_conformance",
              level: "warning",
              operationId: "(proxy)",
              method: request.method ?? "GET",
              path: inert(request.url ?? "/"),
              status: answer?.status || null,
              message: `the proxy could not judge this exchange: ${(error as Error).message}`,
            });
          }
          if (--open === 0) for (const wake of [...idle]) wake();
        });
      });
    };
    const answerHeaders = (from: IncomingMessage): Answer["headers"] => ({
      get(name: string): string | null {
        const value = from.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
      },
    });
    const status = () => incoming?.statusCode ?? 0;
    const headersNow = () => (incoming ? answerHeaders(incoming) : new Headers());
    /** Ends the exchange from outside: the client is told (504 when no answer began), the upstream let go. */
    const end = (outcome: Outcome) => {
      settle(outcome);
      outgoing.destroy();
      if (!response.headersSent && !response.destroyed) {
        const detail = `partner-api proxy: ${outcome.failed ?? outcome.cut}`;
        response.writeHead(504, { "content-type": "application/problem+json", connection: "close" });
        response.end(JSON.stringify({ title: "Gateway timeout", status: 504, detail }));
      } else response.destroy();
    };
    /** For close(): the proxy stops, whatever this exchange was waiting for. */
    const stop = (reason: string) => end({ status: status(), headers: headersNow(), cut: reason });
    inFlight.add(stop);

    request.on("data", (chunk: Buffer) => requestTap.add(chunk));
    request.pipe(outgoing);
    request.on("error", () => outgoing.destroy());
    outgoing.on("timeout", () => {
      // Waiting on a client that reads slowly is not the upstream's silence (the client's own idle limit holds).
      if (incoming && response.writableNeedDrain) return;
      end({
        status: status(),
        headers: headersNow(),
        failed: incoming
          ? `the upstream sent nothing for ${upstreamTimeoutMs / 1000} s in the middle of its answer`
          : `the upstream did not answer within ${upstreamTimeoutMs / 1000} s`,
      });
    });
    outgoing.on("response", (answer) => {
      incoming = answer;
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedResponseHeaders(answer));
      answer.on("data", (chunk: Buffer) => answerTap.add(chunk));
      answer.pipe(response);
      answer.on("error", () => undefined);
      answer.on("close", () => {
        if (answer.complete) return;
        response.destroy();
        settle({
          status: status(),
          headers: headersNow(),
          failed: "the upstream closed the connection before the end of its answer",
        });
      });
      response.on("finish", () => settle({ status: status(), headers: headersNow() }));
    });
    outgoing.on("error", (error) => {
      if (done) return;
      const reason = describeFetchError(error);
      if (incoming) {
        response.destroy();
        settle({
          status: status(),
          headers: headersNow(),
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
      settle({ status: 0, headers: new Headers(), failed: reason });
    });
    // The client left before the whole answer was sent: the upstream's side is let go too.
    response.on("close", () => {
      if (response.writableFinished || done) return;
      outgoing.destroy();
      settle({
        status: status(),
        headers: headersNow(),
        cut: `the client closed the connection before ${incoming ? "the end of the answer" : "an answer"}`,
      });
    });
  }

  const server = createServer(forward);
  server.keepAliveTimeout = 5_000;
  // A client that sends or reads nothing for this long is let go; a long upload or download that moves is not.
  server.timeout = CLIENT_IDLE_TIMEOUT_MS;
  server.requestTimeout = 0;
  const { url, port } = await listen(server, options.host, options.port);
  const settled = () =>
    new Promise<void>((resolve) => {
      if (open === 0) return resolve();
      const wake = () => {
        idle.delete(wake);
        resolve();
      };
      idle.add(wake);
    }).then(() => pending);
  return {
    url,
    port,
    violations,
    counts,
    errors: () => errors,
    stats,
    settled,
    async close() {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const stop of [...inFlight]) stop("the proxy stopped before the end of this exchange");
      server.closeAllConnections();
      await closing;
      await settled();
      agent.destroy();
    },
  };
}
