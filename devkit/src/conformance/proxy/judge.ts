/**
 * The proxy's judgment of one exchange, after the answer has gone out: the request against its operation
 * (request_conformance), the ids it names against the keys whose answers named them first (account_isolation),
 * and the answer with the traffic checks. Named steps, in the order `judge` takes them.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { ContractRouter, type Issue, type Operation } from "../../contract/router.ts";
import { CHECKS, type CheckContext, type ResponseCheck, toFailure } from "../checks.ts";
import { contractExampleIds } from "../example-ids.ts";
import { curlLine, parseJson } from "../http.ts";
import type { Answer, Exchange, Failure, Probe } from "../types.ts";
import { header } from "./headers.ts";

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

const ID_PARAMETERS = new Set(["X-Company-Id", "cardId", "cardHolderId", "routeId", "walletId", "transactionId"]);

/** Headers of the request not repeated in its curl line: the connection's, and the body's length. */
const NOT_REPRODUCED = ["host", "content-length", "connection", "transfer-encoding"];

export interface JudgeOptions {
  document: Record<string, unknown>;
  maxResponseTimeMs?: number;
  /** The upstream's origin and path prefix: where the curl line of a violation sends the request. */
  upstreamOrigin: string;
  prefix: string;
  /** Called with each violation found. */
  report(failure: Failure): void;
  /** Called for a request the contract has no operation for. */
  onUnmatched(): void;
}

/** The request as a curl line reproduces it: against the upstream, its headers and body as sent. */
interface Reproduction {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  account: "main" | "none";
}

/** The failure fields every violation of one exchange shares; its curl line is written only when read. */
type FailureBase = Omit<Failure, "check" | "level" | "message">;

function fingerprint(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
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

/** What kind of request the client sent, from its own validation: it decides what the answer must be. */
function kindOf(operation: Operation, hasKey: boolean, issues: Issue[]): Probe["kind"] {
  if (operation.needsApiKey && !hasKey) return "no-auth";
  if (issues.some((issue) => issue.location[0] === "header" && / is required$/.test(issue.message)))
    return "missing-header";
  return issues.length > 0 ? "negative" : "positive";
}

export class TrafficJudge {
  private readonly router: ContractRouter;
  private readonly checks: ResponseCheck[];
  private readonly context: CheckContext;
  /** id → fingerprint of the key whose answer named it first. */
  private readonly owners = new Map<string, string>();
  /** The contract examples' ids are every sandbox account's own (seeded): they prove nothing about isolation. */
  private readonly shared: ReadonlySet<string>;

  private readonly options: JudgeOptions;
  constructor(options: JudgeOptions) {
    this.options = options;
    this.router = new ContractRouter([{ api: "partner", document: options.document }]);
    this.checks = CHECKS.filter(
      (check): check is ResponseCheck => check.target === "response" && TRAFFIC_CHECKS.has(check.id),
    );
    this.context = {
      router: this.router,
      ...(options.maxResponseTimeMs !== undefined ? { maxResponseTimeMs: options.maxResponseTimeMs } : {}),
    };
    this.shared = contractExampleIds(options.document);
  }

  judge(request: IncomingMessage, requestBody: Buffer | undefined, answer: Answer): void {
    const url = new URL(request.url ?? "/", "http://proxy.invalid");
    const method = request.method ?? "GET";
    const match = this.router.match(method, url.pathname);
    const apiKey = header(request, "x-api-key") || undefined;
    const reproduce = this.reproduction(request, method, requestBody, apiKey);
    if (match.kind !== "operation") {
      this.options.onUnmatched();
      if (url.pathname.startsWith("/_sandbox/")) return;
      this.options.report({
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
    const issues = this.requestIssues(operation, match.pathParams, url, request, requestBody);
    const probe: Probe = {
      operation,
      operationId: operation.operationId,
      method,
      path: operation.path,
      url: reproduce.url,
      headers: reproduce.headers,
      ...(reproduce.body ? { body: reproduce.body } : {}),
      kind: kindOf(operation, apiKey !== undefined, issues),
      label: issues.length > 0 ? issues.map((issue) => issue.message).join("; ") : "traffic",
      account: reproduce.account,
    };
    // The curl line is written only for an exchange that broke something: most break nothing.
    let curl: string | undefined;
    const base: FailureBase = {
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
      this.options.report({
        check: "request_conformance",
        level: "warning",
        ...base,
        message: `the request breaks the contract: ${issue.message}`,
        ...(issue.rule ? { rule: issue.rule } : {}),
      });
    this.isolation(operation, match.pathParams, request, apiKey, answer, base);
    const exchange: Exchange = { probe, answer };
    for (const check of this.checks)
      for (const finding of check.run(exchange, this.context)) this.options.report(toFailure(check, base, finding));
  }

  private reproduction(
    request: IncomingMessage,
    method: string,
    requestBody: Buffer | undefined,
    apiKey: string | undefined,
  ): Reproduction {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      if (value !== undefined && !NOT_REPRODUCED.includes(name))
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
    const text = requestBody?.toString("utf8");
    return {
      method,
      url: `${this.options.upstreamOrigin}${this.options.prefix}${request.url ?? "/"}`,
      headers,
      ...(text ? { body: text } : {}),
      account: apiKey ? "main" : "none",
    };
  }

  /** The request against its operation: parameters, the body's media type, the body. */
  private requestIssues(
    operation: Operation,
    pathParams: Record<string, string>,
    url: URL,
    request: IncomingMessage,
    requestBody: Buffer | undefined,
  ): Issue[] {
    const issues: Issue[] = this.router.validateParameters(operation, {
      path: pathParams,
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
        else issues.push(...this.router.validateBody(operation, mediaType, parsed.json));
      }
    } else if (operation.requestBody?.required && requestBody !== undefined) {
      issues.push({ location: ["body"], message: "the request body is required" });
    }
    return issues;
  }

  /** Isolation: an id another key's answers named first, used with this key and answered 2xx. */
  private isolation(
    operation: Operation,
    pathParams: Record<string, string>,
    request: IncomingMessage,
    apiKey: string | undefined,
    answer: Answer,
    base: FailureBase,
  ): void {
    const owner = apiKey ? fingerprint(apiKey) : undefined;
    const named = operation.parameters
      .filter((parameter) => ID_PARAMETERS.has(parameter.name))
      .map((parameter) =>
        parameter.in === "path"
          ? pathParams[parameter.name]
          : parameter.in === "header"
            ? header(request, parameter.name.toLowerCase())
            : undefined,
      )
      .filter((value): value is string => typeof value === "string");
    if (!owner || answer.status < 200 || answer.status >= 300) return;
    for (const id of named) {
      if (this.shared.has(id)) continue;
      const first = this.owners.get(id);
      if (first !== undefined && first !== owner)
        this.options.report({
          check: "account_isolation",
          level: "error",
          ...base,
          message: `${id} was first seen in another API key's answers, and this key's request naming it was answered ${answer.status}, not 403 or 404`,
        });
    }
    const seen: string[] = [];
    idsIn(answer.json, seen);
    for (const id of [...named, ...seen]) {
      if (this.owners.has(id) || this.shared.has(id)) continue;
      if (this.owners.size >= MAX_TRACKED_IDS) this.owners.delete(this.owners.keys().next().value!);
      this.owners.set(id, owner);
    }
  }
}
