/**
 * Every read verify makes goes through `fetchBounded`: a probe, the first reachability check, a call to the
 * sandbox's control API. Each is bounded in bytes (the rest of a larger body is never read) and in time (the
 * request's own limit, and the run's: `--max-duration`, Ctrl-C). Also here: the probe as a curl command line a
 * person can paste to reproduce it, with the API keys read from the environment rather than printed and
 * every other secret redacted.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inert } from "../inert.ts";
import { isSecretName, REDACTED, redactedBodyText, redactQuery } from "../redact.ts";
import type { Answer, Probe } from "./types.ts";

/** How long one request may take before it counts as no answer, its whole body included. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** An answer body over this is not read (and not judged beyond its status and headers). */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

/** The environment variables a curl line reads the keys from, by account. */
export const KEY_VARIABLES = { main: "PARTNER_API_KEY", other: "PARTNER_OTHER_API_KEY" } as const;

/** The run was stopped (its deadline passed, or Ctrl-C): what was not sent is not judged. */
export class RunStopped extends Error {
  override readonly name = "RunStopped";
}

export function describeFetchError(error: unknown, timeoutMs = REQUEST_TIMEOUT_MS): string {
  if (error instanceof RunStopped) return error.message;
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
  if (error instanceof Error && error.name === "AbortError") return "the run was stopped";
  const cause = (error as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
  return inert(
    String(cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error).message ?? String(error)),
  );
}

/** Parses a body as JSON when it has one; the reason when it is not JSON. */
export function parseJson(text: string): { json?: unknown; jsonError?: string } {
  if (text === "") return { jsonError: "the body is empty" };
  try {
    return { json: JSON.parse(text) };
  } catch (error) {
    return { jsonError: (error as Error).message };
  }
}

/** The body as text, or undefined when it is over `limit` bytes (the rest is not read: the stream is cancelled). */
export async function readLimited(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Node's web streams are async iterable (the DOM typings do not say so); leaving the loop early cancels the
  // stream, so the rest of an oversized body is never read.
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export interface Bounds {
  /** The request's own limit, its body included. Default REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
  /** The run's signal: aborted when the run stops. */
  signal?: AbortSignal | undefined;
  /** The most bytes of the body read. Default MAX_ANSWER_BYTES; 0 reads none (the body is let go at once). */
  maxBytes?: number;
}

/**
 * Sends a request and reads its body within `bounds`; `text` is undefined when the body was over `maxBytes`.
 * Rejects as fetch does (the run's RunStopped when it was stopped).
 */
export async function fetchBounded(
  url: string,
  init: Omit<RequestInit, "signal">,
  bounds: Bounds = {},
): Promise<{ response: Response; text: string | undefined }> {
  const timeout = AbortSignal.timeout(bounds.timeoutMs ?? REQUEST_TIMEOUT_MS);
  const signal = bounds.signal ? AbortSignal.any([timeout, bounds.signal]) : timeout;
  if (bounds.signal?.aborted) throw bounds.signal.reason;
  // No redirect is followed, on any request: the answer is the server's, and a Location of another host
  // would get verify's request (and its key) otherwise. A 3xx is judged, naming where it pointed.
  const response = await fetch(url, { ...init, signal, redirect: "manual" });
  if (bounds.maxBytes === 0) {
    await response.body?.cancel();
    return { response, text: undefined };
  }
  const text = await readLimited(response, bounds.maxBytes ?? MAX_ANSWER_BYTES);
  return { response, text };
}

export async function send(probe: Probe, bounds: Bounds = {}): Promise<Answer> {
  const started = performance.now();
  try {
    const { response, text } = await fetchBounded(
      probe.url,
      {
        method: probe.method,
        headers: probe.headers,
        ...(probe.body !== undefined ? { body: probe.body } : {}),
        redirect: "manual",
      },
      bounds,
    );
    const body =
      text === undefined
        ? { text: "", jsonError: `the body is over ${MAX_ANSWER_BYTES / 1024 / 1024} MB and was not read` }
        : { text, ...parseJson(text) };
    return { status: response.status, headers: response.headers, ms: performance.now() - started, ...body };
  } catch (error) {
    return {
      status: 0,
      headers: new Headers(),
      text: "",
      ms: performance.now() - started,
      error: describeFetchError(error, bounds.timeoutMs),
    };
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The largest body a curl line quotes. */
export const CURL_BODY_BYTES = 64 * 1024;

/**
 * The probe as a curl command: the X-API-Key value comes from $PARTNER_API_KEY / $PARTNER_OTHER_API_KEY, every
 * other secret-named header and query parameter reads [REDACTED], and the body has its secrets redacted
 * (redact.ts); a body over CURL_BODY_BYTES is named by its size.
 */
export function curlLine(probe: Pick<Probe, "method" | "url" | "headers" | "body" | "account">): string {
  const mark = probe.url.indexOf("?");
  const url = mark === -1 ? probe.url : `${probe.url.slice(0, mark + 1)}${redactQuery(probe.url.slice(mark + 1))}`;
  const parts = ["curl", "-sS", "-i", "-X", probe.method, shellQuote(url)];
  let contentType: string | undefined;
  for (const [name, value] of Object.entries(probe.headers)) {
    const lower = name.toLowerCase();
    if (lower === "content-type") contentType = value;
    if (lower === "x-api-key" && probe.account !== "none" && value !== "")
      parts.push("-H", `"${name}: $${KEY_VARIABLES[probe.account]}"`);
    else parts.push("-H", shellQuote(`${name}: ${isSecretName(lower) ? REDACTED : value}`));
  }
  if (probe.body !== undefined) {
    const bytes = Buffer.byteLength(probe.body);
    // A report keeps many lines: a body larger than this is named by its size, not copied into each.
    const shown =
      bytes > CURL_BODY_BYTES
        ? `[${bytes} bytes of ${contentType ?? "(no Content-Type)"}, not shown: over ${CURL_BODY_BYTES / 1024} KiB]`
        : redactedBodyText(probe.body, contentType);
    parts.push("--data-raw", shellQuote(shown));
  }
  return parts.join(" ");
}

/** Listens on `host` (loopback by default) and `port` (a free one by default); the URL to reach it. */
export async function listen(server: Server, host = "127.0.0.1", port = 0): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return { url: `http://${shown.includes(":") ? `[${shown}]` : shown}:${bound}`, port: bound };
}
