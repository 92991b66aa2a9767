/**
 * Writing the sandbox's answers: the headers for each side (CORS on the partner API's) and content type, built
 * once; a reply's media type (the operation's declared one, or a problem document); and problem documents.
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { utf8Length } from "../../bytes.ts";
import type { Operation } from "../../contract/router.ts";
import { answerText } from "../answer-text.ts";
import type { AnyReply, SandboxProblem } from "../flows/flow.ts";
import { HOSTED_PAGE_POLICY } from "../hosted.ts";

/**
 * The partner API, as Prism: any origin may call, so a browser app in development can use the sandbox too. The
 * control API answers only its own origin (boundary.ts), so its answers carry no CORS headers.
 */
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "*",
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-expose-headers": "*",
};
const BASE_HEADERS = { "x-content-type-options": "nosniff" };
const PROBLEM_TYPE_BASE = "https://sandbox.partner-api.invalid/problems/";

/** The response headers for each side and content type, built once: writeHead only reads them. */
const headersByContentType = new Map<string, OutgoingHttpHeaders>();
function headersFor(cors: boolean, contentType?: string): OutgoingHttpHeaders {
  const key = `${cors}|${contentType ?? ""}`;
  let headers = headersByContentType.get(key);
  if (!headers) {
    headers = { ...BASE_HEADERS, ...(cors ? CORS_HEADERS : {}) };
    if (contentType !== undefined) headers["content-type"] = contentType;
    if (contentType === "text/event-stream; charset=utf-8") {
      headers["cache-control"] = "no-cache";
      headers["x-accel-buffering"] = "no";
    }
    // The hosted pages: nothing but their own style runs or loads.
    if (contentType?.startsWith("text/html")) headers["content-security-policy"] = HOSTED_PAGE_POLICY;
    // Frozen: each answer spreads it with its length, and V8 (Node 20) copies a frozen object's properties into a
    // new one several times faster than a plain one's (docs/design/sandbox-throughput.md).
    headersByContentType.set(key, Object.freeze(headers));
  }
  return headers;
}

/** Told of each answer about to be sent (test mode's request log); returns the text to send. */
export type AnswerTap = (status: number, headers: OutgoingHttpHeaders, text: string | undefined) => string | undefined;

/** Where an answer goes and what it answers: the response, its side, the operation if routed, a tap if any. */
export interface AnswerTarget {
  readonly response: ServerResponse;
  cors: boolean;
  operation: Operation | undefined;
  tap: AnswerTap | undefined;
}

export function send(target: AnswerTarget, reply: AnyReply): void {
  const { response, cors, operation } = target;
  if (reply.stream) {
    response.writeHead(reply.status, headersFor(cors, "text/event-stream; charset=utf-8"));
    response.flushHeaders();
    reply.stream(response);
    return;
  }
  let headers: OutgoingHttpHeaders = headersFor(cors);
  let text: string | undefined;
  if (reply.html !== undefined) {
    headers = headersFor(cors, "text/html; charset=utf-8");
    text = reply.html;
  } else if (reply.body !== undefined) {
    // A status the operation declares answers in its declared media type; any other is a problem document.
    const declared = operation?.responses.get(reply.status)?.mediaType;
    const contentType = declared?.includes("json")
      ? declared
      : reply.status >= 400
        ? "application/problem+json"
        : "application/json";
    headers = headersFor(cors, contentType);
    text = answerText(reply.body);
  }
  if (reply.headers) headers = { ...headers, ...reply.headers };
  if (target.tap) text = target.tap(reply.status, headers, text);
  // Its length declared, so the answer goes out in one write, not chunked; the text is encoded as it is written.
  response.writeHead(reply.status, { ...headers, "content-length": text === undefined ? 0 : utf8Length(text) });
  response.end(text);
}

export function problemReply(error: SandboxProblem): AnyReply {
  return {
    status: error.status,
    body: {
      type: PROBLEM_TYPE_BASE + error.kind,
      title: error.title,
      status: error.status,
      detail: error.message,
      ...(error.validation ? { validation: error.validation } : {}),
    },
    ...(error.headers ? { headers: error.headers } : {}),
  };
}
