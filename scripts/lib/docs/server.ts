/**
 * A small static file server for the built docs: `npm run docs:preview` and the browser test use it.
 * It serves one folder, read-only, and never a file outside it.
 */

import { readFile, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".yaml": "application/yaml; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

export interface StaticServer {
  /** The address to open, ending in a slash, e.g. `http://127.0.0.1:41234/`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface StaticServerOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to bind; loopback unless told otherwise. */
  host?: string;
  /** Called once per request, after the response is sent. */
  onRequest?: (entry: { method: string; path: string; status: number }) => void;
  /** Files served from memory, by path from the root (`try-config.json`), before those on disk. */
  files?: Readonly<Record<string, { body: string; type: string }>>;
}

/** Maps a request path to a file inside `root`, or undefined when it would leave `root`. */
export function resolveInside(root: string, requestPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(requestPath.split("?")[0]!.split("#")[0]!);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const relative = decoded.endsWith("/") ? `${decoded}index.html` : decoded;
  const resolvedRoot = path.resolve(root);
  const file = path.resolve(resolvedRoot, `.${path.posix.normalize(`/${relative}`)}`);
  if (file !== resolvedRoot && !file.startsWith(resolvedRoot + path.sep)) return undefined;
  return file;
}

/** Serves `root` over HTTP (GET and HEAD only) until `close()` is called. */
export async function serveStatic(root: string, options: StaticServerOptions = {}): Promise<StaticServer> {
  const rootStat = await stat(root).catch(() => undefined);
  if (!rootStat?.isDirectory()) throw new Error(`cannot serve ${root}: it is not a directory`);
  const host = options.host ?? "127.0.0.1";
  const server: Server = createServer(async (request, response) => {
    const method = request.method ?? "GET";
    const requestPath = request.url ?? "/";
    const send = (status: number, body: Buffer | string, type = "text/plain; charset=utf-8") => {
      response.writeHead(status, {
        "content-type": type,
        "content-length": Buffer.byteLength(body),
        "cache-control": "no-cache",
        "x-content-type-options": "nosniff",
      });
      response.end(method === "HEAD" ? undefined : body);
      options.onRequest?.({ method, path: requestPath, status });
    };
    if (method !== "GET" && method !== "HEAD") return send(405, "method not allowed\n");
    const pathname = new URL(requestPath, "http://localhost").pathname;
    const generated =
      options.files && Object.hasOwn(options.files, pathname.slice(1)) ? options.files[pathname.slice(1)] : undefined;
    if (generated) return send(200, generated.body, generated.type);
    const file = resolveInside(root, requestPath);
    if (!file) return send(400, "bad path\n");
    try {
      const info = await stat(file);
      if (!info.isFile()) return send(404, "not found\n");
      const type = contentTypes[path.extname(file).toLowerCase()] ?? "application/octet-stream";
      send(200, await readFile(file), type);
    } catch {
      send(404, "not found\n");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
