/**
 * The mock's front: `partner-api mock` listens here and passes each request on to Prism, listening on a
 * loopback port of its own behind it. Prism's logger walks a request body recursively: a 5,000-deep JSON array
 * (10 KB) overflowed its stack and ended the mock. The front reads each body first (at most Prism's own 10 MB)
 * and answers what Prism cannot be handed: a body nested deeper than the sandbox's limit (MAX_JSON_DEPTH, far
 * beyond any schema of the contract, which Prism would refuse with 422 anyway) gets that 422 here, naming the
 * limit; a body over 10 MB a 413; a body sent as JSON (`application/json` or `application/*+json`, the types Prism
 * parses) that is not JSON a 400, naming the parse error: Prism 5.15.10 to 5.16.0 never answer one (the request
 * hangs until its sender gives up; docs/design/toolchain.md). A request whose sender went away or broke its chunking
 * is dropped. Every other request reaches Prism byte for byte, and its answer comes back unchanged, but for Prism's
 * own refusals (4xx): those get the same status with the reason in a reader's words (mock-words.ts), as the
 * sandbox words its own.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./common/json-depth.ts";
import { ContractRouter } from "./contract/router.ts";
import { isPrismRefusal, prismLocations, type ReadRequest, wordedAnswer } from "./mock-words.ts";
import { type PrismOptions, type PrismServer, startPrism } from "./prism.ts";

/** Prism's own body limit (10 MB): a larger body is refused here, unread. */
export const MOCK_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface MockFront {
  url: string;
  port: number;
  /** Passes requests on to Prism at 127.0.0.1:`port` from now on (before, they get a 503). */
  forwardTo(port: number): void;
  close(): Promise<void>;
}

function problem(response: ServerResponse, status: number, title: string, detail: string): void {
  const body = JSON.stringify({ type: "about:blank", title, status, detail });
  response.writeHead(status, {
    "content-type": "application/problem+json",
    "content-length": Buffer.byteLength(body),
    "access-control-allow-origin": "*",
  });
  response.end(body);
}

/** Prism's headers for an answer whose body the front replaces: without its length, type and findings. */
const REPLACED_HEADERS = new Set(["content-length", "content-type", "sl-violations", "transfer-encoding"]);

/**
 * Passes Prism's answer on: unchanged, unless it is Prism's refusal of the request (a 4xx of its own), which
 * goes out with the same status and the reason in words.
 */
function relay(answer: IncomingMessage, response: ServerResponse, request: ReadRequest, router?: ContractRouter): void {
  const status = answer.statusCode ?? 502;
  answer.on("error", () => response.destroy());
  if (!router || status < 400 || status > 499) {
    response.writeHead(status, answer.statusMessage, answer.rawHeaders);
    answer.pipe(response);
    return;
  }
  const chunks: Buffer[] = [];
  answer.on("data", (chunk: Buffer) => chunks.push(chunk));
  answer.on("end", () => {
    const text = Buffer.concat(chunks).toString("utf8");
    if (!isPrismRefusal(status, answer.headers, text)) {
      response.writeHead(status, answer.statusMessage, answer.rawHeaders);
      response.end(text);
      return;
    }
    const worded = wordedAnswer(router, request, status, prismLocations(answer.headers, text));
    const body = JSON.stringify(worded.body);
    const kept = Object.entries(answer.headers).filter(([name]) => !REPLACED_HEADERS.has(name));
    response.writeHead(worded.status, {
      ...Object.fromEntries(kept),
      ...worded.headers,
      "content-type": worded.contentType,
      "content-length": Buffer.byteLength(body),
    });
    response.end(body);
  });
}

/** Whether Prism reads a body of this Content-Type as JSON (its type-is test: application/json, application/*+json). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const essence = (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();
  return essence === "application/json" || /^application\/[^/\s]+\+json$/.test(essence);
}

/** The parse error of a body that is not JSON, or undefined when it is. */
function jsonError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * How much of a body over the limit is read (and dropped) so that its sender, still sending, reads the 413 instead of
 * a reset connection; past it the connection is closed.
 */
const MOCK_DRAIN_BYTES = 4 * MOCK_MAX_BODY_BYTES;

/** The whole body, or "too-large" (the rest is drained up to MOCK_DRAIN_BYTES), or undefined when the sender is gone. */
function readBody(request: IncomingMessage): Promise<Buffer | "too-large" | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const tooLarge = (): void => {
      over = true;
      chunks.length = 0;
      resolve("too-large");
    };
    if (Number(request.headers["content-length"]) > MOCK_MAX_BODY_BYTES) tooLarge();
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MOCK_DRAIN_BYTES) request.socket.destroy();
      else if (over) return;
      else if (size > MOCK_MAX_BODY_BYTES) tooLarge();
      else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", () => resolve(undefined));
  });
}

/**
 * Listens on host:port (first, so a port in use is found before Prism starts) and passes requests on to Prism
 * once `forwardTo` names its port. With `contract` (the document Prism serves), Prism's refusals are worded.
 */
export async function startMockFront(
  host: string,
  port: number,
  contract?: Record<string, unknown>,
): Promise<MockFront> {
  let prismPort: number | undefined;
  const router = contract ? new ContractRouter([{ api: "partner", document: contract }]) : undefined;
  const server: Server = createServer(async (request, response) => {
    request.on("error", () => response.destroy());
    const hasBody =
      request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined;
    const body = hasBody ? await readBody(request) : Buffer.alloc(0);
    if (body === undefined) {
      response.destroy();
      return;
    }
    if (body === "too-large") {
      // A body that will not be drained whole: the connection goes once the answer is out.
      if (Number(request.headers["content-length"]) > MOCK_DRAIN_BYTES) response.setHeader("connection", "close");
      problem(
        response,
        413,
        "Body too large",
        `the body is over ${MOCK_MAX_BODY_BYTES} bytes, the most the mock takes`,
      );
      return;
    }
    const text = body.length > 0 ? body.toString("utf8") : "";
    if (text !== "" && nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      problem(
        response,
        422,
        "Body too deep",
        `the body nests deeper than ${MAX_JSON_DEPTH} levels, the deepest the mock takes (no schema of the contract nests near it)`,
      );
      return;
    }
    const notJson = text !== "" && isJsonMediaType(request.headers["content-type"]) ? jsonError(text) : undefined;
    if (notJson !== undefined) {
      problem(response, 400, "Malformed JSON", `the body is sent as JSON but is not JSON: ${notJson}`);
      return;
    }
    if (prismPort === undefined) {
      problem(response, 503, "Mock starting", "Prism is still starting; try again in a moment");
      return;
    }
    const headers = { ...request.headers };
    delete headers["transfer-encoding"];
    if (hasBody) headers["content-length"] = String(body.length);
    const upstream = httpRequest(
      { host: "127.0.0.1", port: prismPort, method: request.method, path: request.url, headers },
      (answer) =>
        relay(answer, response, { method: request.method ?? "GET", url: request.url ?? "/", headers, body }, router),
    );
    upstream.on("error", (error) => {
      if (response.headersSent) response.destroy();
      else problem(response, 502, "Mock unavailable", `Prism did not answer: ${error.message}`);
    });
    response.on("close", () => upstream.destroy());
    upstream.end(body);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actual}`,
    port: actual,
    forwardTo: (port) => {
      prismPort = port;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Prism behind the front, as `partner-api mock` runs them, for tests and benchmarks that want what partners get: the
 * front on options.host:options.port (loopback and a free port by default), Prism on a free loopback port of its own.
 * The url and port are the front's, the pid is Prism's; stop() closes both.
 */
export async function startPrismBehindFront(options: PrismOptions = {}): Promise<PrismServer> {
  const front = await startMockFront(options.host ?? "127.0.0.1", options.port ?? 0);
  const prism = await startPrism({ ...options, host: "127.0.0.1", port: undefined }).catch(async (error: unknown) => {
    await front.close();
    throw error;
  });
  front.forwardTo(prism.port);
  return {
    url: front.url,
    port: front.port,
    pid: prism.pid,
    stop: async () => {
      await front.close();
      await prism.stop();
    },
  };
}
