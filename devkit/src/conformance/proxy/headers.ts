/** The proxy's headers: what is forwarded each way (the end-to-end headers), and one header's value. */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";

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

export function header(message: IncomingMessage, name: string): string | undefined {
  const value = message.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The names a Connection header lists, lower case: hop-by-hop for this message too. */
function connectionTokens(value: string | string[] | undefined): Set<string> {
  const tokens = new Set<string>();
  for (const part of (Array.isArray(value) ? value.join(",") : (value ?? "")).split(","))
    if (part.trim()) tokens.add(part.trim().toLowerCase());
  return tokens;
}

/** The request's headers to forward: the end-to-end ones, Host set to the upstream's. */
export function forwardedRequestHeaders(headers: IncomingHttpHeaders, host: string): Record<string, string | string[]> {
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
export function forwardedResponseHeaders(incoming: IncomingMessage): string[] {
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
