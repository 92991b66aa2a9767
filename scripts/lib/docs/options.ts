/** Parsing of the preview's host and port settings, with errors that name the setting. */
import { isIP } from "node:net";

export const DEFAULT_DOCS_HOST = "127.0.0.1";
/** A fixed default so the preview URL is stable; DOCS_PORT=0 picks any free port. */
export const DEFAULT_DOCS_PORT = 4020;

export function parsePort(value: string, name: string): number {
  if (!/^\d+$/.test(value.trim()))
    throw new Error(`${name} must be a port number from 0 to 65535 (0 picks a free port), got "${value}"`);
  const port = Number(value.trim());
  if (port > 65535)
    throw new Error(`${name} must be a port number from 0 to 65535 (0 picks a free port), got "${value}"`);
  return port;
}

export function parseHost(value: string, name: string): string {
  const host = value.trim();
  if (host === "localhost" || isIP(host) !== 0) return host;
  throw new Error(`${name} must be an IP address or "localhost", got "${value}"`);
}
