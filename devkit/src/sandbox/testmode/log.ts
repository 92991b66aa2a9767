/**
 * The request log: every call the sandbox answers (the log's own operations aside), newest last, bounded in
 * memory and never written to the state file. An entry keeps what it needs as it was (the headers, a body of
 * up to LOGGED_BODY_BYTES as sent) and is rendered to its contract shape (`SandboxRequest`) only when read, so
 * logging costs a call little; the answer's check against the contract runs then too (and is kept). A larger
 * body is read at once (redact.ts: parsed by its media type, its secrets redacted) and only the first
 * LOGGED_BODY_BYTES of the redacted text are kept, so no secret survives a cut and no entry holds more than
 * twice that. Secrets are redacted in every rendering: headers, query and bodies, by the names redact.ts lists;
 * a body that is not JSON or a form shows as its length and type.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { components } from "../../../generated/sandbox.js";
import { sha256Hex, utf8Bytes, utf8Length, utf8Text } from "../../bytes.ts";
import type { ContractRouter, Operation } from "../../contract/router.ts";
import {
  headerText,
  isJsonMediaType,
  mediaTypeOf,
  type OmittedBody,
  readRedacted,
  redactHeaders,
  redactQuery,
} from "../../redact.ts";
import type { FaultApplied } from "./faults.ts";

export type SandboxRequest = components["schemas"]["SandboxRequest"];

/** The most bytes of each body the log keeps. */
export const LOGGED_BODY_BYTES = 64 * 1024;
export const DEFAULT_REQUEST_LOG_SIZE = 1000;
/**
 * The most bytes the log holds in all (bodies and headers): past it the oldest entries of the account holding the
 * most go, whatever the size.
 */
export const MAX_LOGGED_BYTES = 128 * 1024 * 1024;
/** The most bytes one account's calls (or those of the callers without one) hold: past it, its own oldest go. */
export const MAX_LOGGED_BYTES_PER_ACCOUNT = 32 * 1024 * 1024;
/** The most request streams open at once, and the most one account (or the callers without one) may hold. */
export const MAX_REQUEST_STREAMS = 100;
export const MAX_REQUEST_STREAMS_PER_ACCOUNT = 10;
/**
 * The most bytes a stream may have waiting for its client: one that reads slower than the log grows (or not at
 * all) is disconnected past it, and may come back with Last-Event-ID.
 */
export const MAX_STREAM_BUFFER_BYTES = 1024 * 1024;

/** An account as the log and faults name it: a fingerprint of its API key, never the key. */
export function accountFingerprint(apiKey: string): string {
  return `acct_${sha256Hex(apiKey).slice(0, 12)}`;
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
  requestBody: Uint8Array | undefined;
  status: number | null;
  responseHeaders: OutgoingHttpHeaders;
  responseText: Uint8Array | string | undefined;
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

/**
 * A body as the log keeps it: one of at most LOGGED_BODY_BYTES as it came or went (a request's bytes, an answer's
 * text), itself, read when rendered (its media type from the call's headers then): no wrapper per call;
 * `redacted`, the JSON text of a larger body already redacted (`cut` when only its start is kept); `omitted`,
 * the size and type of a larger body that is neither JSON nor a form.
 */
type KeptBody = Uint8Array | string | LargeBody;
type LargeBody = { kind: "redacted"; text: Uint8Array; cut: boolean } | { kind: "omitted"; omitted: OmittedBody };

/** What a kept body holds, in bytes: a body as sent its own size (`sent`), a larger one what was kept of it. */
function keptSize(body: KeptBody | undefined, sent: number): number {
  if (body === undefined) return 0;
  if (isSent(body)) return sent;
  return body.kind === "omitted" ? 64 : body.text.length;
}

/** A body's size in bytes (0: none). */
function sizeOf(text: Uint8Array | string | undefined): number {
  if (text === undefined) return 0;
  return typeof text === "string" ? utf8Length(text) : text.length;
}

/** A body larger than LOGGED_BODY_BYTES, read at once: redacted, its start kept, or its size and type. */
function keepLarge(text: Uint8Array | string, contentType: string): LargeBody {
  const read = readRedacted(utf8Text(text), contentType);
  if ("omitted" in read) return { kind: "omitted", omitted: read.omitted };
  const json = JSON.stringify(read.parsed);
  // Kept as bytes of its own: a slice of the string would hold on to the whole text it was cut from.
  return json.length <= LOGGED_BODY_BYTES
    ? { kind: "redacted", text: utf8Bytes(json), cut: false }
    : { kind: "redacted", text: utf8Bytes(json.slice(0, LOGGED_BODY_BYTES)), cut: true };
}

function isSent(body: KeptBody): body is Uint8Array | string {
  return typeof body === "string" || body instanceof Uint8Array;
}

/** The body as `LoggedMessage` shows it: parsed and redacted, its redacted start when cut, or its size and type. */
function shown(
  body: KeptBody | undefined,
  contentType: string | string[] | number | undefined,
): { body?: unknown; truncated?: true; omitted?: OmittedBody } {
  if (body === undefined) return {};
  if (isSent(body)) {
    const read = readRedacted(utf8Text(body), headerText(contentType));
    return "omitted" in read ? { omitted: read.omitted } : { body: read.parsed };
  }
  if (body.kind === "omitted") return { omitted: body.omitted };
  return body.cut ? { body: utf8Text(body.text), truncated: true } : { body: JSON.parse(utf8Text(body.text)) };
}

class Entry {
  /** The contract check, run once: when the answer is recorded if it is too long to keep whole, else when read. */
  private check: SandboxRequest["contract"] | undefined;
  private readonly requestBody: KeptBody | undefined;
  private readonly responseBody: KeptBody | undefined;
  /** Roughly what the entry holds, for the log's byte bound. */
  readonly bytes: number;
  /** Pushed out of its account's calls; still in the log's list until the next sweep. */
  dropped = false;

  readonly id: number;
  readonly call: LoggedCall;
  constructor(id: number, call: LoggedCall, router: ContractRouter) {
    this.id = id;
    this.call = call;
    const responseText = call.responseText;
    if (responseText !== undefined && responseText.length > LOGGED_BODY_BYTES)
      this.check = contractCheck(router, call, utf8Text(responseText));
    // Kept as they are, not copied: an answer's text is its own (one cut short by a malformed fault comes as bytes
    // of its own, Exchange.answer), a request's bytes are the ones read. A larger body is read at once.
    const requestBytes = sizeOf(call.requestBody);
    const responseBytes = sizeOf(responseText);
    this.requestBody =
      requestBytes === 0
        ? undefined
        : requestBytes <= LOGGED_BODY_BYTES
          ? call.requestBody
          : keepLarge(call.requestBody!, headerText(call.requestHeaders["content-type"]));
    this.responseBody =
      responseBytes === 0
        ? undefined
        : responseBytes <= LOGGED_BODY_BYTES
          ? responseText
          : keepLarge(responseText!, headerText(call.responseHeaders["content-type"]));
    // The entry keeps its own: the call's whole bodies are let go.
    call.requestBody = undefined;
    call.responseText = undefined;
    this.bytes =
      1024 +
      keptSize(this.requestBody, requestBytes) +
      keptSize(this.responseBody, responseBytes) +
      (call.path.length + call.query.length);
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

  /** The entry in its contract shape, built each time it is read (what it holds is not kept twice). */
  render(router: ContractRouter): SandboxRequest {
    const { call } = this;
    const answer = this.responseBody !== undefined && isSent(this.responseBody) ? utf8Text(this.responseBody) : "";
    this.check ??= contractCheck(router, call, answer);
    return {
      id: this.id,
      at: new Date(call.atMs).toISOString(),
      account: call.account,
      api: call.operation?.api ?? null,
      operationId: call.operation?.operationId ?? null,
      method: call.method,
      path: call.path,
      ...(call.query ? { query: redactQuery(call.query) } : {}),
      status: call.status,
      durationMs: Math.round(call.durationMs * 1000) / 1000,
      ...(call.scenario !== undefined ? { scenario: call.scenario } : {}),
      request: {
        headers: redactHeaders(call.requestHeaders),
        ...shown(this.requestBody, call.requestHeaders["content-type"]),
      },
      response: {
        headers: redactHeaders(call.responseHeaders),
        ...shown(this.responseBody, call.responseHeaders["content-type"]),
      },
      fault: call.fault,
      contract: this.check,
    };
  }
}

/** Whether the answer is one the contract declares: the status, and the body against its schema. */
function contractCheck(router: ContractRouter, call: LoggedCall, text: string): SandboxRequest["contract"] {
  if (!call.operation || call.status === null) return null;
  let body: unknown = text;
  if (isJsonMediaType(mediaTypeOf(call.responseHeaders["content-type"])) && text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      return { valid: false, issues: [{ location: ["response"], message: "the body is not valid JSON" }] };
    }
  }
  const issues = router.validateResponse(call.operation, call.status, body);
  return { valid: issues.length === 0, issues };
}

/** A follower of the log: `send` gets each matching entry and its JSON text (made once for every stream). */
export interface RequestStream {
  filter: RequestFilter;
  send(entry: SandboxRequest, json: string): void;
}

/** Whose streams a stream counts among: its account, or the callers without one. */
function streamOwner(stream: RequestStream): string {
  return stream.filter.account ?? "";
}

/** One account's calls (or the callers' without one), oldest first, and what they hold. */
interface OwnerLog {
  key: string;
  entries: Entry[];
  bytes: number;
}

/**
 * The calls, each account's kept apart: `size` is the most calls kept per account (and for the callers without
 * one), so one account calling in a loop pushes out its own oldest calls, never another's. Bytes are bounded per
 * account (MAX_LOGGED_BYTES_PER_ACCOUNT) and in all (MAX_LOGGED_BYTES: past it, the account holding the most
 * loses its oldest).
 */
export class RequestLog {
  /** Every entry kept, oldest first, for listing across accounts; dropped ones are swept out in batches. */
  private entries: Entry[] = [];
  private droppedInEntries = 0;
  private readonly owners = new Map<string, OwnerLog>();
  private nextId = 1;
  /** What the entries hold, in bytes (roughly): at most `bounds.maxBytes`. */
  private bytes = 0;
  private readonly streams = new Set<RequestStream>();
  private readonly streamsByOwner = new Map<string, number>();

  private readonly router: ContractRouter;
  readonly size: number;
  /** The byte bounds: in all, and per account (smaller ones in tests). */
  readonly bounds: { maxBytes: number; maxBytesPerAccount: number };
  constructor(
    router: ContractRouter,
    size: number = DEFAULT_REQUEST_LOG_SIZE,
    bounds: { maxBytes: number; maxBytesPerAccount: number } = {
      maxBytes: MAX_LOGGED_BYTES,
      maxBytesPerAccount: MAX_LOGGED_BYTES_PER_ACCOUNT,
    },
  ) {
    this.router = router;
    this.size = size;
    this.bounds = bounds;
  }

  /** The bytes the log holds, in all or for one account (`null`: the callers without one). */
  heldBytes(account?: string | null): number {
    if (account === undefined) return this.bytes;
    return this.owners.get(account ?? "")?.bytes ?? 0;
  }

  record(call: LoggedCall): void {
    if (this.size === 0) return;
    const entry = new Entry(this.nextId++, call, this.router);
    const key = call.account ?? "";
    let owner = this.owners.get(key);
    if (!owner) {
      owner = { key, entries: [], bytes: 0 };
      this.owners.set(key, owner);
    }
    owner.entries.push(entry);
    owner.bytes += entry.bytes;
    this.entries.push(entry);
    this.bytes += entry.bytes;
    // The newest call of an account is always kept, whatever its size.
    while (
      owner.entries.length > 1 &&
      (owner.entries.length > this.size || owner.bytes > this.bounds.maxBytesPerAccount)
    )
      this.dropOldest(owner);
    while (this.bytes > this.bounds.maxBytes) {
      let largest: OwnerLog | undefined;
      // Any account's oldest but the call just made: many accounts of one call each are bounded too.
      for (const candidate of this.owners.values())
        if ((candidate !== owner || candidate.entries.length > 1) && (!largest || candidate.bytes > largest.bytes))
          largest = candidate;
      if (!largest) break;
      this.dropOldest(largest);
    }
    if (this.droppedInEntries > 1024 && this.droppedInEntries * 2 > this.entries.length) this.sweep();
    if (this.streams.size === 0) return;
    let json: string | undefined;
    let rendered: SandboxRequest | undefined;
    for (const stream of this.streams) {
      if (!entry.matches(stream.filter)) continue;
      rendered ??= entry.render(this.router);
      json ??= JSON.stringify(rendered);
      stream.send(rendered, json);
    }
  }

  private dropOldest(owner: OwnerLog): void {
    const oldest = owner.entries.shift()!;
    owner.bytes -= oldest.bytes;
    this.bytes -= oldest.bytes;
    oldest.dropped = true;
    this.droppedInEntries++;
    if (owner.entries.length === 0) this.owners.delete(owner.key);
  }

  private sweep(): void {
    this.entries = this.entries.filter((entry) => !entry.dropped);
    this.droppedInEntries = 0;
  }

  /** The matching entries, newest first, at most `limit`, and how many match in all. */
  list(filter: RequestFilter, limit: number): { requests: SandboxRequest[]; count: number } {
    const requests: SandboxRequest[] = [];
    let count = 0;
    const kept = filter.account === undefined ? this.entries : (this.owners.get(filter.account)?.entries ?? []);
    for (let index = kept.length - 1; index >= 0; index--) {
      const entry = kept[index]!;
      if (entry.dropped || !entry.matches(filter)) continue;
      count++;
      if (requests.length < limit) requests.push(entry.render(this.router));
    }
    return { requests, count };
  }

  /** Forgets the account's entries, or every entry. */
  clear(account?: string): void {
    if (account === undefined) {
      this.entries = [];
      this.owners.clear();
      this.bytes = 0;
    } else {
      const owner = this.owners.get(account);
      if (!owner) return;
      this.owners.delete(account);
      this.bytes -= owner.bytes;
      this.entries = this.entries.filter((entry) => entry.call.account !== account && !entry.dropped);
    }
    this.droppedInEntries = 0;
  }

  /** Why another stream for `account` (undefined: a caller without one) cannot be opened; undefined when it can. */
  streamRefusal(account: string | undefined): string | undefined {
    if (this.streams.size >= MAX_REQUEST_STREAMS)
      return `${MAX_REQUEST_STREAMS} request streams are open, the most the sandbox serves; close one first`;
    if ((this.streamsByOwner.get(account ?? "") ?? 0) >= MAX_REQUEST_STREAMS_PER_ACCOUNT)
      return `${account === undefined ? "callers without an account" : `account ${account}`} already hold${account === undefined ? "" : "s"} ${MAX_REQUEST_STREAMS_PER_ACCOUNT} request streams, the most one account may; close one first`;
    return undefined;
  }

  /** Sends the entries after `afterId` still held, then every new one, until the returned function is called. */
  follow(stream: RequestStream, afterId: number | undefined): () => void {
    if (afterId !== undefined)
      for (const entry of this.entries)
        if (!entry.dropped && entry.id > afterId && entry.matches(stream.filter)) {
          const rendered = entry.render(this.router);
          stream.send(rendered, JSON.stringify(rendered));
        }
    const owner = streamOwner(stream);
    this.streams.add(stream);
    this.streamsByOwner.set(owner, (this.streamsByOwner.get(owner) ?? 0) + 1);
    return () => {
      if (!this.streams.delete(stream)) return;
      const left = (this.streamsByOwner.get(owner) ?? 1) - 1;
      if (left === 0) this.streamsByOwner.delete(owner);
      else this.streamsByOwner.set(owner, left);
    };
  }
}
