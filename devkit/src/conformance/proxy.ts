/**
 * `proxy`: forwards every request to the upstream unchanged and validates both directions against the
 * contract, as Prism's validation proxy does, with the checks verify uses. Bytes are streamed both ways as they
 * come; a copy is kept, and the exchange is judged after the answer has gone out, so the checks add nothing to
 * the request's time. Beyond Prism: an id first seen in one key's answers and then named with another key
 * (X-Company-Id or a path id) and answered 2xx is an isolation failure.
 */
import { createHash } from "node:crypto";
import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { ContractRouter, type Issue, type Operation } from "../contract/router.ts";
import { CHECKS, type CheckContext, type ResponseCheck, toFailure } from "./checks.ts";
import { curlLine, describeFetchError, listen, parseJson } from "./http.ts";
import type { Answer, Exchange, Failure, Probe } from "./types.ts";

/** Bodies up to this size are kept for validation; a larger one passes through unvalidated. */
export const MAX_VALIDATED_BODY_BYTES = 1024 * 1024;
/** Violations kept in memory at most (a long session keeps counting them, and reporting each). */
export const MAX_KEPT_VIOLATIONS = 10_000;
/** Ids remembered for the isolation check at most (the oldest are forgotten first). */
export const MAX_TRACKED_IDS = 100_000;

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

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "te",
  "trailer",
  "upgrade",
]);
const ID_PARAMETERS = new Set(["X-Company-Id", "cardId", "cardHolderId", "routeId", "walletId", "transactionId"]);

export interface ProxyOptions {
  upstream: string;
  host?: string;
  port?: number;
  maxResponseTimeMs?: number;
  /** The contract; the devkit's own when omitted. */
  document: Record<string, unknown>;
  /** Called for each violation as it is found. */
  onViolation?: (failure: Failure) => void;
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
  /** Requests forwarded, and how many of them the contract has no operation for (passed through unjudged). */
  stats: { requests: number; unmatched: number };
  /** Resolves when every exchange received so far has been judged. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

function header(message: IncomingMessage, name: string): string | undefined {
  const value = message.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function fingerprint(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** Ids of the objects an answer describes: every string under a property named `id`. */
function idsIn(value: unknown, into: string[], depth = 0): void {
  if (depth > 32 || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value) idsIn(item, into, depth + 1);
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === "id" && typeof child === "string") into.push(child);
    else idsIn(child, into, depth + 1);
  }
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
  const router = new ContractRouter([{ api: "partner", document: options.document }]);
  const checks = CHECKS.filter(
    (check): check is ResponseCheck => check.target === "response" && TRAFFIC_CHECKS.has(check.id),
  );
  const context: CheckContext = {
    router,
    ...(options.maxResponseTimeMs !== undefined ? { maxResponseTimeMs: options.maxResponseTimeMs } : {}),
  };
  const violations: Failure[] = [];
  const stats = { requests: 0, unmatched: 0 };
  /** id → fingerprint of the key whose answer named it first. */
  const owners = new Map<string, string>();
  let pending: Promise<void> = Promise.resolve();
  /** Exchanges forwarded and not judged yet. */
  let open = 0;

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
        if (owners.has(id)) continue;
        if (owners.size >= MAX_TRACKED_IDS) owners.delete(owners.keys().next().value!);
        owners.set(id, owner);
      }
    }
    const exchange: Exchange = { probe, answer };
    for (const check of checks)
      for (const finding of check.run(exchange, context)) report(toFailure(check, base, finding));
  }

  function forward(request: IncomingMessage, response: ServerResponse): void {
    stats.requests++;
    open++;
    const started = performance.now();
    const headers: Record<string, string | string[] | undefined> = { ...request.headers, host: upstream.host };
    for (const name of HOP_BY_HOP) delete headers[name];
    const requestChunks: Buffer[] = [];
    let requestSize = 0;
    const outgoing = send({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: `${prefix}${request.url ?? "/"}`,
      headers,
      agent,
    });
    const hadBody =
      request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined;
    request.on("data", (chunk: Buffer) => {
      requestSize += chunk.length;
      if (requestSize <= MAX_VALIDATED_BODY_BYTES) requestChunks.push(chunk);
      outgoing.write(chunk);
    });
    request.on("end", () => outgoing.end());
    const finish = (answer: Answer, body: Buffer | undefined) => {
      pending = pending.then(() => {
        open--;
        try {
          judge(request, body, answer);
        } catch (error) {
          report({
            check: "request_conformance",
            level: "warning",
            operationId: "(proxy)",
            method: request.method ?? "GET",
            path: request.url ?? "/",
            status: answer.status || null,
            message: `the proxy could not judge this exchange: ${(error as Error).message}`,
          });
        }
      });
    };
    const requestBody = () =>
      requestSize > MAX_VALIDATED_BODY_BYTES ? undefined : hadBody ? Buffer.concat(requestChunks) : undefined;
    outgoing.on("response", (incoming) => {
      response.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, incoming.rawHeaders);
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_VALIDATED_BODY_BYTES) chunks.push(chunk);
        response.write(chunk);
      });
      incoming.on("end", () => {
        response.end();
        const ms = performance.now() - started;
        const text = size <= MAX_VALIDATED_BODY_BYTES ? Buffer.concat(chunks).toString("utf8") : "";
        const answerHeaders = {
          get(name: string): string | null {
            const value = incoming.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
          },
        };
        setImmediate(() =>
          finish(
            { status: incoming.statusCode ?? 0, headers: answerHeaders, text, ms, ...parseJson(text) },
            requestBody(),
          ),
        );
      });
      incoming.on("error", () => response.destroy());
    });
    outgoing.on("error", (error) => {
      const reason = describeFetchError(error);
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
      finish(
        { status: 0, headers: new Headers(), text: "", ms: performance.now() - started, error: reason },
        requestBody(),
      );
    });
    request.on("error", () => outgoing.destroy());
  }

  const server = createServer(forward);
  server.keepAliveTimeout = 5_000;
  const { url, port } = await listen(server, options.host, options.port);
  return {
    url,
    port,
    violations,
    counts,
    errors: () => errors,
    stats,
    async settled() {
      while (open > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await pending;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          agent.destroy();
          resolve();
        });
      }),
  };
}
