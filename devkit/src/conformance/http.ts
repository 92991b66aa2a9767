/**
 * Sending one probe and reading its whole answer, timed; and the probe as a curl command line a person can
 * paste to reproduce it, with the API keys read from the environment rather than printed.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Answer, Probe } from "./types.ts";

/** How long one request may take before it counts as no answer. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The environment variables a curl line reads the keys from, by account. */
export const KEY_VARIABLES = { main: "PARTNER_API_KEY", other: "PARTNER_OTHER_API_KEY" } as const;

export function describeFetchError(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error).message ?? String(error);
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

/** An answer body over this is not read (and not judged beyond its status and headers). */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

/** The body as text, or undefined when it is over `limit` bytes (the rest is not read). */
async function readLimited(response: Response, limit: number): Promise<string | undefined> {
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

export async function send(probe: Probe, timeoutMs: number = REQUEST_TIMEOUT_MS): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(probe.url, {
      method: probe.method,
      headers: probe.headers,
      ...(probe.body !== undefined ? { body: probe.body } : {}),
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await readLimited(response, MAX_ANSWER_BYTES);
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
      error: describeFetchError(error),
    };
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The probe as a curl command; the X-API-Key value comes from $PARTNER_API_KEY / $PARTNER_OTHER_API_KEY. */
export function curlLine(probe: Pick<Probe, "method" | "url" | "headers" | "body" | "account">): string {
  const parts = ["curl", "-sS", "-i", "-X", probe.method, shellQuote(probe.url)];
  for (const [name, value] of Object.entries(probe.headers)) {
    if (name.toLowerCase() === "x-api-key" && probe.account !== "none" && value !== "")
      parts.push("-H", `"${name}: $${KEY_VARIABLES[probe.account]}"`);
    else parts.push("-H", shellQuote(`${name}: ${value}`));
  }
  if (probe.body !== undefined) parts.push("--data-raw", shellQuote(probe.body));
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
