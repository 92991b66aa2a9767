/**
 * Reading a request at the sandbox's HTTP front: its path and query, and its body within the sandbox's limit
 * (413 past 1 MiB; a sender gone mid-body is `RequestGone`, dropped rather than answered).
 */
import type { IncomingMessage } from "node:http";
import { concatBytes } from "../../bytes.ts";
import type { QueryValues } from "../../contract/router.ts";
import { SandboxProblem } from "../flows/flow.ts";
import { MAX_BODY_BYTES } from "../limits.ts";

const NO_QUERY: QueryValues = { get: () => null };
/**
 * A request target whose path `new URL` would return unchanged: no dot segments, percent-escapes, backslashes
 * or leading `//`, and no fragment. Anything else goes through `new URL`, so both give the same path and query.
 */
const PLAIN_TARGET = /^\/(?!\/)[\w\-~/]*(?:\?[^#]*)?$/;

export function pathAndQuery(target: string): { pathname: string; query: QueryValues } {
  if (PLAIN_TARGET.test(target)) {
    const mark = target.indexOf("?");
    if (mark === -1) return { pathname: target, query: NO_QUERY };
    return { pathname: target.slice(0, mark), query: new URLSearchParams(target.slice(mark + 1)) };
  }
  const url = new URL(target, "http://sandbox.invalid");
  return { pathname: url.pathname, query: url.searchParams };
}

/** A request that declares no body (no Content-Length, no Transfer-Encoding) has none to read. */
export function hasBody(request: IncomingMessage): boolean {
  return request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined;
}

const bodyTooLarge = () =>
  new SandboxProblem(
    413,
    "body-too-large",
    "Body too large",
    `the body is over ${MAX_BODY_BYTES} bytes (1 MiB), the largest the sandbox takes`,
  );

/** The request's stream failed: its sender went away mid-body, or broke its chunking. Nobody is left to answer. */
export class RequestGone extends Error {
  override readonly name = "RequestGone";
}

export function readBody(request: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // A declared length over the limit is refused without reading it (what is sent is drained).
    if (Number(request.headers["content-length"]) > MAX_BODY_BYTES) {
      reject(bodyTooLarge());
      request.resume();
      return;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    request.on("data", (chunk: Uint8Array) => {
      if (size > MAX_BODY_BYTES) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        reject(bodyTooLarge());
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(concatBytes(chunks)));
    request.on("error", (error) => reject(new RequestGone(error.message)));
  });
}
