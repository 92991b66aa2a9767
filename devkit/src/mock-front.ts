/**
 * The mock's front: `partner-api mock` listens here and passes each request on to Prism, listening on a
 * loopback port of its own behind it. Prism's logger walks a request body recursively: a 5,000-deep JSON array
 * (10 KB) overflowed its stack and ended the mock. The front reads each body first (at most Prism's own 10 MB)
 * and answers what Prism cannot be handed: a body nested deeper than the sandbox's limit (MAX_JSON_DEPTH, far
 * beyond any schema of the contract, which Prism would refuse with 422 anyway) gets that 422 here, naming the
 * limit; a body over 10 MB a 413; a request whose sender went away or broke its chunking is dropped. Every other
 * request reaches Prism byte for byte, and its answer comes back unchanged.
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

/** The whole body, or "too-large", or undefined when the request stream failed (the sender is gone). */
function readBody(request: IncomingMessage): Promise<Buffer | "too-large" | undefined> {
  return new Promise((resolve) => {
    if (Number(request.headers["content-length"]) > MOCK_MAX_BODY_BYTES) {
      request.resume();
      resolve("too-large");
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      if (size > MOCK_MAX_BODY_BYTES) return;
      size += chunk.length;
      if (size > MOCK_MAX_BODY_BYTES) {
        chunks.length = 0;
        resolve("too-large");
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", () => resolve(undefined));
  });
}

/**
 * Listens on host:port (first, so a port in use is found before Prism starts) and passes requests on to Prism
 * once `forwardTo` names its port.
 */
export async function startMockFront(host: string, port: number): Promise<MockFront> {
  let prismPort: number | undefined;
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
      response.setHeader("connection", "close");
      problem(
        response,
        413,
        "Body too large",
        `the body is over ${MOCK_MAX_BODY_BYTES} bytes, the most the mock takes`,
      );
      return;
    }
    if (body.length > 0 && nestsDeeperThan(body.toString("utf8"), MAX_JSON_DEPTH)) {
      problem(
        response,
        422,
        "Body too deep",
        `the body nests deeper than ${MAX_JSON_DEPTH} levels, the deepest the mock takes (no schema of the contract nests near it)`,
      );
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
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(response);
        answer.on("error", () => response.destroy());
      },
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
