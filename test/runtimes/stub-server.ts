/**
 * The server every runtime's scenario talks to: a loopback HTTP server that answers each operation of the contract
 * with its first named example (generated/openapi.json), pages the list operations' example items by `page` and
 * `limit`, and keeps a few ids for the cases a partner's code must survive: an answer that fails twice with 503
 * before it succeeds, one that never comes (until the client gives up), one that is not found. It also serves the
 * files the browser run loads (same origin, so no CORS), and logs each request by API key for the runner to check.
 * Stub behaviour, none of it the contract's: a missing API key is a 401, a company-scope operation without a valid
 * `X-Company-Id` a 400, so a call that forgot the scope fails.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { operations, pageable, ulid } from "../../generated/contract.ts";
import { bundleJsonPath } from "../../scripts/lib/paths.ts";

/** A ULID of the stub's own, recognisable by its word: `01JD8X` + word + zeros to 26 characters. */
const stubId = (word: string) => `01JD8X${word}`.padEnd(26, "0");

/** The ids with a behaviour of their own, in any path parameter. */
export const STUB_IDS = {
  /** Answered 503 twice (with `Retry-After: 0`), then as usual. */
  flaky: stubId("FA1KY"),
  /** Never answered: held until the client closes the connection (or 60 s). */
  slow: stubId("S1EEP"),
  /** Answered 404 with a JSON body. */
  missing: stubId("M1SS1NG"),
} as const;

/** The most a request body may be: the stub reads no more. */
const MAX_BODY_BYTES = 1024 * 1024;
const HOLD_MS = 60_000;

interface Route {
  pattern: RegExp;
  template: string;
  method: string;
  status: number;
  example: unknown;
  companyScope: boolean;
}

type JsonObject = Record<string, unknown>;

/** Every operation of the contract with its success status and first example, as routes. */
function routesOf(document: JsonObject): Route[] {
  const routes: Route[] = [];
  const paths = document.paths as Record<string, Record<string, JsonObject>>;
  for (const [template, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const facts = (operations as Record<string, Record<string, readonly unknown[]> | undefined>)[template]?.[
        method.toUpperCase()
      ];
      if (!facts) continue;
      const responses = operation.responses as Record<string, JsonObject>;
      const status = Object.keys(responses).find((code) => /^2\d\d$/.test(code));
      if (!status) throw new Error(`stub: ${method.toUpperCase()} ${template} declares no 2xx response`);
      const response = resolve(document, responses[status]!);
      const content = (response.content as Record<string, JsonObject> | undefined)?.["application/json"];
      const examples = content?.examples as Record<string, JsonObject> | undefined;
      const first = examples ? resolve(document, Object.values(examples)[0]!) : undefined;
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "([^/]+)")}$`);
      routes.push({
        pattern,
        template,
        method: method.toUpperCase(),
        status: Number(status),
        example: first?.value ?? {},
        companyScope: facts[2] === 1,
      });
    }
  }
  return routes;
}

function resolve(document: JsonObject, node: JsonObject): JsonObject {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  let target: unknown = document;
  for (const part of ref.replace(/^#\//, "").split("/")) target = (target as JsonObject)[part.replace(/~1/g, "/")];
  return resolve(document, target as JsonObject);
}

export interface StubServer {
  url: string;
  /** Each request of one API key, as `METHOD /path?query` plus ` company=<id>` when it carried a company. */
  requestsOf(apiKey: string): string[];
  /** Serves `body` at `path` (the browser run's page and bundle). */
  serveFile(path: string, contentType: string, body: string): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** The example's items for one page, with `pagination` filled in when the example has it. */
function page(route: Route, query: URLSearchParams): unknown {
  const itemsKey = (pageable as Record<string, { itemsKey: string } | undefined>)[route.template]?.itemsKey;
  const example = route.example as JsonObject;
  const items = itemsKey ? example[itemsKey] : undefined;
  if (!itemsKey || !Array.isArray(items)) return example;
  const number = Math.max(1, Number(query.get("page") ?? 1) || 1);
  const limit = Math.max(1, Number(query.get("limit") ?? items.length) || items.length);
  const body: JsonObject = { ...example, [itemsKey]: items.slice((number - 1) * limit, number * limit) };
  if ("pagination" in example)
    body.pagination = { currentPage: number, totalPages: Math.ceil(items.length / limit), perPage: limit };
  return body;
}

/** Reads the body up to MAX_BODY_BYTES; undefined when it is larger. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function startStubServer(): Promise<StubServer> {
  const routes = routesOf(JSON.parse(readFileSync(bundleJsonPath, "utf8")) as JsonObject);
  const log = new Map<string, string[]>();
  const attempts = new Map<string, number>();
  const files = new Map<string, { contentType: string; body: string }>();
  const held = new Set<ServerResponse>();
  const ulidPattern = new RegExp(ulid.pattern);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://stub.invalid");
    const file = files.get(url.pathname);
    if (file && req.method === "GET") {
      res.writeHead(200, { "content-type": file.contentType });
      res.end(file.body);
      return;
    }
    const apiKey = req.headers["x-api-key"];
    if (typeof apiKey !== "string" || apiKey === "") return send(res, 401, { stub: "X-API-Key is missing" });
    const company = req.headers["x-company-id"];
    const entry = `${req.method} ${url.pathname}${url.search}${typeof company === "string" ? ` company=${company}` : ""}`;
    const requests = log.get(apiKey) ?? [];
    log.set(apiKey, requests);
    if (requests.length >= 10_000) return send(res, 429, { stub: "over 10,000 requests for this key" });
    requests.push(entry);
    const attemptKey = `${apiKey} ${req.method} ${url.pathname}`;
    const attempt = (attempts.get(attemptKey) ?? 0) + 1;
    attempts.set(attemptKey, attempt);
    const headers = { "x-stub-attempt": String(attempt) };
    let route: Route | undefined;
    let match: RegExpExecArray | null = null;
    for (const candidate of routes) {
      match = candidate.method === req.method ? candidate.pattern.exec(url.pathname) : null;
      if (match) {
        route = candidate;
        break;
      }
    }
    if (!route || !match) return send(res, 404, { stub: `no operation ${req.method} ${url.pathname}` }, headers);
    const body = await readBody(req);
    if (body === undefined) return send(res, 413, { stub: `body over ${MAX_BODY_BYTES} bytes` }, headers);
    if (body !== "") {
      try {
        JSON.parse(body);
      } catch {
        return send(res, 400, { stub: "the body is not JSON" }, headers);
      }
    }
    if (route.companyScope && !(typeof company === "string" && ulidPattern.test(company)))
      return send(res, 400, { stub: `${route.template} acts for a company: X-Company-Id must be a ULID` }, headers);
    const ids = match.slice(1).map(decodeURIComponent);
    if (ids.includes(STUB_IDS.missing)) return send(res, 404, { stub: "not found", id: STUB_IDS.missing }, headers);
    if (ids.includes(STUB_IDS.flaky) && attempt <= 2)
      return send(res, 503, { stub: `unavailable, attempt ${attempt}` }, { ...headers, "retry-after": "0" });
    if (ids.includes(STUB_IDS.slow)) {
      held.add(res);
      const timer = setTimeout(() => send(res, 504, { stub: "held too long" }, headers), HOLD_MS);
      res.on("close", () => {
        clearTimeout(timer);
        held.delete(res);
      });
      return;
    }
    send(res, route.status, page(route, url.searchParams), headers);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { stub: `stub failure: ${(error as Error).message}` });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requestsOf: (apiKey) => [...(log.get(apiKey) ?? [])],
    serveFile: (path, contentType, body) => {
      files.set(path, { contentType, body });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
