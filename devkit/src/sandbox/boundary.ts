/**
 * The sandbox's browser boundary, checked before a request reaches the dashboard or the router. The sandbox
 * holds secrets (webhook signing secrets, the request log) and runs on a developer's machine, where any page
 * their browser opens can send it requests:
 *
 * - The `Host` header must name the sandbox by an IP address, `localhost` (or a name under `.localhost`), the
 *   interface it listens on, or a name given with `allowedHosts` (`--allowed-host`; `.example.com` for that
 *   name and every name under it). A page on a name its owner points at 127.0.0.1 (DNS rebinding) sends its
 *   own name, and is refused. This is Vite's `server.allowedHosts` and webpack-dev-server's `allowedHosts`.
 * - The control API (`/_sandbox/…`: the log, its stream, faults, secrets), the dashboard and its files answer
 *   only their own origin: a request whose `Origin` is another (a cross-origin `fetch`, a form posted from
 *   another site), or that the browser marks as sent from another site (`Sec-Fetch-Site`) other than by
 *   following a link, is refused before it does anything. The partner API keeps allowing any origin, as Prism
 *   does (server.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP } from "node:net";
import { inert } from "../inert.ts";

/** A name `allowedHosts` takes: a host name, or `.` and one for that name and every name under it. */
const HOST_PATTERN = /^\.?(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Checks the `allowedHosts` entries; the error names the bad one. */
export function checkedAllowedHosts(hosts: unknown, name = "allowedHosts"): string[] {
  if (hosts === undefined) return [];
  if (!Array.isArray(hosts)) throw new TypeError(`${name} must be an array of host names, got ${String(hosts)}`);
  return hosts.map((host, index) => {
    const text = typeof host === "string" ? host.trim().toLowerCase().replace(/\.$/, "") : "";
    if (!HOST_PATTERN.test(text) && isIP(text) === 0)
      throw new TypeError(
        `${name}[${index}] must be a host name (sandbox.example.test, or .example.test for every name under it), got ${JSON.stringify(host)?.slice(0, 80) ?? String(host)}`,
      );
    return text;
  });
}

/** The host name of a `Host` header value: lower case, without its port, brackets or final dot. */
export function hostNameOf(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[")) {
    const end = name.indexOf("]");
    name = end === -1 ? name.slice(1) : name.slice(1, end);
  } else {
    const colon = name.lastIndexOf(":");
    if (colon !== -1 && name.indexOf(":") === colon) name = name.slice(0, colon);
  }
  return name.replace(/\.$/, "");
}

/**
 * Paths that answer only their own origin: the control API, the dashboard's page and its files. Read as the
 * router reads them (dot segments resolved), so `/v1/../_sandbox/faults` is the control API's too.
 */
function ownOriginOnly(target: string): boolean {
  let path: string;
  try {
    path = new URL(target, "http://sandbox.invalid").pathname;
  } catch {
    return true;
  }
  return path === "/" || path.startsWith("/_sandbox") || path.startsWith("/_dashboard/");
}

export interface Boundary {
  /** Answers (403) and returns true when the request crosses the boundary; false to let it through. */
  refuse(request: IncomingMessage, response: ServerResponse): boolean;
}

/** The boundary of a sandbox listening on `listenHost`, also answering the names in `allowedHosts`. */
export function createBoundary(listenHost: string, allowedHosts: readonly string[]): Boundary {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const host of [hostNameOf(listenHost), ...allowedHosts])
    if (host.startsWith(".")) suffixes.push(host);
    else exact.add(host);
  const hostAllowed = (name: string) =>
    isIP(name) !== 0 ||
    name === "localhost" ||
    name.endsWith(".localhost") ||
    exact.has(name) ||
    suffixes.some((suffix) => name === suffix.slice(1) || name.endsWith(suffix));

  const problem = (response: ServerResponse, kind: string, title: string, detail: string) => {
    const body = JSON.stringify({
      type: `https://sandbox.partner-api.invalid/problems/${kind}`,
      title,
      status: 403,
      detail,
    });
    response.writeHead(403, {
      "content-type": "application/problem+json",
      "content-length": Buffer.byteLength(body),
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
    });
    response.end(body);
  };

  /** Host header values found allowed (a client sends the same one on every call); bounded, started afresh when full. */
  const allowedHeaders = new Set<string>();
  const headerAllowed = (host: string) => {
    if (allowedHeaders.has(host)) return true;
    if (!hostAllowed(hostNameOf(host))) return false;
    if (allowedHeaders.size >= 64) allowedHeaders.clear();
    allowedHeaders.add(host);
    return true;
  };

  return {
    refuse(request, response) {
      const host = request.headers.host;
      if (host !== undefined && !headerAllowed(host)) {
        const name = JSON.stringify(inert(hostNameOf(host).slice(0, 100)));
        problem(
          response,
          "host-not-allowed",
          "Host not allowed",
          `this sandbox answers requests for an IP address, localhost or its own interface, not the Host ${name} (a page of another site can point such a name at this machine); start it with --allowed-host ${inert(hostNameOf(host).slice(0, 100))} (allowedHosts) if you reach it by that name`,
        );
        return true;
      }
      if (!ownOriginOnly(request.url ?? "/")) return false;
      const origin = request.headers.origin;
      if (origin !== undefined) {
        const lower = origin.toLowerCase();
        const self = host?.toLowerCase();
        const own = self !== undefined && (lower === `http://${self}` || lower === `https://${self}`);
        if (!own) {
          problem(
            response,
            "cross-origin",
            "Cross-origin request refused",
            `the control API and the dashboard answer only their own origin (http://${inert(host ?? "")}), not ${JSON.stringify(inert(origin.slice(0, 200)))}`,
          );
          return true;
        }
        return false;
      }
      const site = request.headers["sec-fetch-site"];
      if ((site === "cross-site" || site === "same-site") && request.headers["sec-fetch-mode"] !== "navigate") {
        problem(
          response,
          "cross-origin",
          "Cross-origin request refused",
          "the control API and the dashboard answer only their own origin, not a request another site's page sent",
        );
        return true;
      }
      return false;
    },
  };
}
