/**
 * The sandbox dashboard: a page served at the sandbox's root to a browser (a request that accepts
 * text/html), with its files under /_dashboard/. Everything it shows it reads from the control API over
 * HTTP, as any client would; this module only hands out files. API clients keep getting the API: `GET /`
 * without text/html, and every other path, fall through to the sandbox's router (404 problem and all).
 *
 * The files are the page's own (page/: plain ES modules, no build step), openapi-fetch's ES module (the page's
 * control client is openapi-fetch over the control contract's generated types, checked in JSDoc) and Scalar's standalone API
 * reference for the console, read from @scalar/api-reference in this repository and from dist/dashboard/
 * in the built package; the contracts the console shows are the sandbox's own. Nothing loads from another
 * host: the page's Content-Security-Policy says so to the browser too.
 */
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { contractJsonPath, fromSource, packageRoot, sandboxContractJsonPath } from "../paths.ts";

/** Where the page's files are served from. */
export const DASHBOARD_PREFIX = "/_dashboard/";

/** The page's own files: devkit/src/dashboard/page/ here, dist/dashboard/ in the built package. */
export const pageDir = fromSource
  ? path.join(path.dirname(fileURLToPath(import.meta.url)), "page")
  : path.join(packageRoot, "dist", "dashboard");

/** Scalar's standalone bundle (one file, no network of its own once its fonts and telemetry are off). */
export function scalarBundlePath(): string {
  if (!fromSource) return path.join(pageDir, "scalar", "standalone.js");
  // The package exports no subpath for its browser bundle: find it beside its main entry.
  const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return path.join(path.dirname(main), "browser", "standalone.js");
}

/** openapi-fetch's browser module (ES, no imports of its own): the page's control client is built on it. */
export function openapiFetchModulePath(): string {
  if (!fromSource) return path.join(pageDir, "openapi-fetch.js");
  // The package's `import` entry (dist/index.mjs), found from its CommonJS one beside it.
  const main = createRequire(import.meta.url).resolve("openapi-fetch");
  return path.join(path.dirname(main), "index.mjs");
}

/**
 * What the page may load: its own origin only. Scalar adds <style> elements as it renders (hence inline
 * styles); scripts, connections, images and fonts stay on the sandbox.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
};

/** A page file's name: lower-case words, one extension the table knows. Nothing else is ever read. */
const PAGE_FILE = /^[a-z][a-z0-9-]*\.(?:js|css|svg|html)$/;

interface Asset {
  file: string;
  contentType: string;
}

/** The files under /_dashboard/ by name: the page's folder as listed once, Scalar, and the two contracts. */
function assetTable(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(pageDir)) {
    if (!PAGE_FILE.test(name) || name === "index.html") continue;
    assets.set(name, { file: path.join(pageDir, name), contentType: CONTENT_TYPES[path.extname(name)]! });
  }
  assets.set("scalar.js", { file: scalarBundlePath(), contentType: CONTENT_TYPES[".js"]! });
  assets.set("openapi-fetch.js", { file: openapiFetchModulePath(), contentType: CONTENT_TYPES[".js"]! });
  assets.set("openapi.json", { file: contractJsonPath, contentType: CONTENT_TYPES[".json"]! });
  assets.set("sandbox.json", { file: sandboxContractJsonPath, contentType: CONTENT_TYPES[".json"]! });
  return assets;
}

/** True when the request is a browser asking for a page: GET or HEAD, with text/html among what it accepts. */
export function acceptsHtml(request: IncomingMessage): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const accept = request.headers.accept;
  return typeof accept === "string" && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}

interface Loaded {
  body: Buffer;
  etag: string;
}

export interface Dashboard {
  /** Answers the request when it is the dashboard's (true), or leaves it untouched for the API (false). */
  handle(request: IncomingMessage, response: ServerResponse): boolean;
}

/** The dashboard's part of the sandbox's HTTP edge. Files are read on first use and kept. */
export function createDashboard(): Dashboard {
  let assets: Map<string, Asset> | undefined;
  const loaded = new Map<string, Promise<Loaded>>();
  const load = (file: string): Promise<Loaded> => {
    let entry = loaded.get(file);
    if (!entry) {
      entry = readFile(file).then((body) => ({
        body,
        etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
      }));
      // A file that could not be read is tried again next time, not remembered as missing.
      entry.catch(() => loaded.delete(file));
      loaded.set(file, entry);
    }
    return entry;
  };

  const serve = (request: IncomingMessage, response: ServerResponse, file: string, contentType: string) => {
    load(file).then(
      ({ body, etag }) => {
        const headers = {
          "content-type": contentType,
          "cache-control": "no-cache",
          etag,
          "x-content-type-options": "nosniff",
          ...(contentType.startsWith("text/html") ? { "content-security-policy": CONTENT_SECURITY_POLICY } : {}),
        };
        if (request.headers["if-none-match"] === etag) {
          response.writeHead(304, headers);
          response.end();
          return;
        }
        response.writeHead(200, { ...headers, "content-length": body.length });
        response.end(request.method === "HEAD" ? undefined : body);
      },
      (error: NodeJS.ErrnoException) => {
        response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        response.end(`the sandbox dashboard cannot read ${path.basename(file)}: ${error.code ?? error.message}`);
      },
    );
  };

  return {
    handle(request, response) {
      const target = request.url ?? "/";
      const pathname = target.split("?", 1)[0]!;
      if (pathname === "/") {
        if (!acceptsHtml(request)) return false;
        serve(request, response, path.join(pageDir, "index.html"), CONTENT_TYPES[".html"]!);
        return true;
      }
      if (!pathname.startsWith(DASHBOARD_PREFIX) || (request.method !== "GET" && request.method !== "HEAD"))
        return false;
      assets ??= assetTable();
      const asset = assets.get(pathname.slice(DASHBOARD_PREFIX.length));
      if (!asset) return false;
      serve(request, response, asset.file, asset.contentType);
      return true;
    },
  };
}
