/**
 * The request log: every call the sandbox answers (the log's own operations aside), newest last, bounded in
 * memory and never written to the state file. An entry keeps what it needs as it was (the headers, the raw
 * request body, the answer's text) and is rendered to its contract shape (`SandboxRequest`) only when read,
 * so logging costs a call little; the answer's check against the contract runs then too.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { components } from "../../../../generated/sandbox.js";
import type { ContractRouter, Operation } from "../../contract/router.ts";
import type { FaultApplied } from "./faults.ts";

export type SandboxRequest = components["schemas"]["SandboxRequest"];

/** The most bytes of each body the log keeps. */
export const LOGGED_BODY_BYTES = 64 * 1024;
export const DEFAULT_REQUEST_LOG_SIZE = 1000;
/** The most request streams open at once. */
export const MAX_REQUEST_STREAMS = 100;
export const REDACTED = "[REDACTED]";

const SECRET_HEADERS = new Set(["x-api-key", "authorization", "proxy-authorization", "cookie", "set-cookie"]);
/** Body fields whose value is a secret, by name: `secret`, `accessToken`, `apiKey`, `password`, `token`… */
const SECRET_FIELD = /secret|token|password|api-?key/i;

/** An account as the log and faults name it: a fingerprint of its API key, never the key. */
export function accountFingerprint(apiKey: string): string {
  return `acct_${createHash("sha256").update(apiKey).digest("hex").slice(0, 12)}`;
}

/** One call as it happened, before rendering. */
export interface LoggedCall {
  atMs: number;
  account: string | null;
  operation: Operation | undefined;
  method: string;
  path: string;
  query: string;
  scenario: string | undefined;
  requestHeaders: IncomingHttpHeaders;
  requestBody: Buffer | undefined;
  status: number | null;
  responseHeaders: OutgoingHttpHeaders;
  responseText: string | undefined;
  durationMs: number;
  fault: FaultApplied | null;
}

export interface RequestFilter {
  account?: string | undefined;
  operationId?: string | undefined;
  status?: number | undefined;
  api?: "partner" | "control" | undefined;
  sinceMs?: number | undefined;
}

class Entry {
  private rendered: SandboxRequest | undefined;
  /** The contract check, run at record time when the answer is too long to keep whole. */
  private check: SandboxRequest["contract"] | undefined;
  /** True when only the first LOGGED_BODY_BYTES of the answer are kept. */
  private truncatedAnswer = false;

  constructor(
    readonly id: number,
    readonly call: LoggedCall,
    router: ContractRouter,
  ) {
    if ((call.responseText?.length ?? 0) > LOGGED_BODY_BYTES) {
      this.check = contractCheck(router, call);
      call.responseText = call.responseText!.slice(0, LOGGED_BODY_BYTES);
      this.truncatedAnswer = true;
    }
  }

  matches(filter: RequestFilter): boolean {
    const { call } = this;
    return (
      (filter.account === undefined || call.account === filter.account) &&
      (filter.operationId === undefined || call.operation?.operationId === filter.operationId) &&
      (filter.status === undefined || call.status === filter.status) &&
      (filter.api === undefined || call.operation?.api === filter.api) &&
      (filter.sinceMs === undefined || call.atMs >= filter.sinceMs)
    );
  }

  render(router: ContractRouter): SandboxRequest {
    if (this.rendered) return this.rendered;
    const { call } = this;
    const requestBody =
      call.requestBody && call.requestBody.length > 0
        ? readBody(
            call.requestBody.toString("utf8"),
            headerText(call.requestHeaders["content-type"]),
            call.requestBody.length > LOGGED_BODY_BYTES,
          )
        : undefined;
    const responseBody =
      call.responseText !== undefined && call.responseText !== ""
        ? readBody(call.responseText, headerText(call.responseHeaders["content-type"]), this.truncatedAnswer)
        : undefined;
    this.rendered = {
      id: this.id,
      at: new Date(call.atMs).toISOString(),
      account: call.account,
      api: call.operation?.api ?? null,
      operationId: call.operation?.operationId ?? null,
      method: call.method,
      path: call.path,
      ...(call.query ? { query: call.query } : {}),
      status: call.status,
      durationMs: Math.round(call.durationMs * 1000) / 1000,
      ...(call.scenario !== undefined ? { scenario: call.scenario } : {}),
      request: { headers: loggedHeaders(call.requestHeaders), ...requestBody },
      response: { headers: loggedHeaders(call.responseHeaders), ...responseBody },
      fault: call.fault,
      contract: this.check ?? contractCheck(router, call),
    };
    return this.rendered;
  }
}

/** A body as logged: parsed when JSON or a form, the text otherwise, secrets redacted. */
function readBody(text: string, contentType: string, truncated: boolean): { body: unknown; truncated?: true } {
  if (truncated) return { body: text.slice(0, LOGGED_BODY_BYTES), truncated: true };
  return { body: redactFields(parseBody(text, contentType)) };
}

function parseBody(text: string, contentType: string): unknown {
  if (contentType.includes("json")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (contentType.startsWith("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(text));
  return text;
}

function headerText(value: string | string[] | number | undefined): string {
  return Array.isArray(value) ? value.join(", ") : value === undefined ? "" : String(value);
}

function loggedHeaders(headers: IncomingHttpHeaders | OutgoingHttpHeaders): Record<string, string> {
  const logged: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    logged[key] = SECRET_HEADERS.has(key) ? REDACTED : headerText(value);
  }
  return logged;
}

/** A copy of a JSON value with every secret-named field's value replaced (depth-limited like the bodies). */
export function redactFields(value: unknown, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => redactFields(item, depth + 1));
  const copy: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value))
    copy[key] =
      SECRET_FIELD.test(key) && item !== null && typeof item !== "object" ? REDACTED : redactFields(item, depth + 1);
  return copy;
}

/** Whether the answer is one the contract declares: the status, and the body against its schema. */
function contractCheck(router: ContractRouter, call: LoggedCall): SandboxRequest["contract"] {
  if (!call.operation || call.status === null) return null;
  const text = call.responseText ?? "";
  const contentType = headerText(call.responseHeaders["content-type"]);
  let body: unknown = text;
  if (contentType.includes("json") && text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      return { valid: false, issues: [{ location: ["response"], message: "the body is not valid JSON" }] };
    }
  }
  const issues = router.validateResponse(call.operation, call.status, body);
  return { valid: issues.length === 0, issues };
}

export interface RequestStream {
  filter: RequestFilter;
  send(entry: SandboxRequest): void;
}

export class RequestLog {
  private entries: Entry[] = [];
  private nextId = 1;
  private readonly streams = new Set<RequestStream>();

  constructor(
    private readonly router: ContractRouter,
    readonly size: number = DEFAULT_REQUEST_LOG_SIZE,
  ) {}

  record(call: LoggedCall): void {
    if (this.size === 0) return;
    const entry = new Entry(this.nextId++, call, this.router);
    this.entries.push(entry);
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
    for (const stream of this.streams) if (entry.matches(stream.filter)) stream.send(entry.render(this.router));
  }

  /** The matching entries, newest first, at most `limit`, and how many match in all. */
  list(filter: RequestFilter, limit: number): { requests: SandboxRequest[]; count: number } {
    const requests: SandboxRequest[] = [];
    let count = 0;
    for (let index = this.entries.length - 1; index >= 0; index--) {
      const entry = this.entries[index]!;
      if (!entry.matches(filter)) continue;
      count++;
      if (requests.length < limit) requests.push(entry.render(this.router));
    }
    return { requests, count };
  }

  /** Forgets the account's entries, or every entry. */
  clear(account?: string): void {
    this.entries = account === undefined ? [] : this.entries.filter((entry) => entry.call.account !== account);
  }

  /** Whether another stream may be opened. */
  get streamsFull(): boolean {
    return this.streams.size >= MAX_REQUEST_STREAMS;
  }

  /** Sends the entries after `afterId` still held, then every new one, until the returned function is called. */
  follow(stream: RequestStream, afterId: number | undefined): () => void {
    if (afterId !== undefined)
      for (const entry of this.entries)
        if (entry.id > afterId && entry.matches(stream.filter)) stream.send(entry.render(this.router));
    this.streams.add(stream);
    return () => this.streams.delete(stream);
  }
}
