/**
 * The one reader of server-sent events (the sandbox's request stream, `text/event-stream`) for the devkit's tools
 * and tests: the stream's lines gathered into events as the HTML standard's "interpret an event stream" does
 * (fields `event`, `data`, `id`; comments and unknown fields skipped; a blank line ends an event; lines end with
 * LF, CRLF or CR). What a server sends is bounded: an event (or a run of comments) longer than `maxEventBytes`
 * without a blank line ends the reading with an error that names the limit, so a broken or hostile server
 * cannot make the reader hold an unbounded buffer.
 */

export interface ServerSentEvent {
  /** The `event` field; "message" when the event names none. */
  event: string;
  /** The `data` lines joined with LF. */
  data: string;
  /** The last `id` field seen so far (the standard's last event id); undefined before any. */
  id: string | undefined;
}

/** The most bytes one event may take before its blank line, by default (a request log entry is far below). */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024;

export class EventStreamError extends Error {
  override name = "EventStreamError";
}

/**
 * The events of a `text/event-stream` body, in order, until it ends; leaving the loop early (break, return, an
 * error) cancels the body. An event without any `data` line is not dispatched, as the standard says.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  options: { maxEventBytes?: number } = {},
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const maxEventBytes = options.maxEventBytes ?? MAX_EVENT_BYTES;
  if (!Number.isInteger(maxEventBytes) || maxEventBytes < 1)
    throw new RangeError(`maxEventBytes must be a whole number above 0, got ${String(maxEventBytes)}`);
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  /** Where the buffer's search for a line end goes on from: the part before it holds none. */
  let searched = 0;
  /** Characters of the event being read so far (its lines already taken out of the buffer). */
  let eventLength = 0;
  let type = "";
  let data: string[] = [];
  let lastId: string | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A CR at the very end may be the first half of a CRLF: it waits for the next chunk unless the stream ended.
      for (let end = lineEnd(buffer, done, searched); end !== -1; end = lineEnd(buffer, done, 0)) {
        const line = buffer.slice(0, end);
        const skip = buffer[end] === "\r" && buffer[end + 1] === "\n" ? 2 : 1;
        buffer = buffer.slice(end + skip);
        searched = 0;
        if (line === "") {
          if (data.length > 0) yield { event: type || "message", data: data.join("\n"), id: lastId };
          type = "";
          data = [];
          eventLength = 0;
          continue;
        }
        eventLength += line.length + skip;
        tooLong(eventLength, maxEventBytes);
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let fieldValue = colon === -1 ? "" : line.slice(colon + 1);
        if (fieldValue.startsWith(" ")) fieldValue = fieldValue.slice(1);
        if (field === "event") type = fieldValue;
        else if (field === "data") data.push(fieldValue);
        else if (field === "id" && !fieldValue.includes("\0")) lastId = fieldValue;
      }
      // A CR left at the end may start a CRLF: it is looked at again with the next chunk.
      searched = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
      tooLong(eventLength + buffer.length, maxEventBytes);
      // An event the stream's end cuts off before its blank line is dropped, as the standard says.
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function tooLong(length: number, max: number): void {
  // Characters, not bytes: a character is at least one byte, so the bound holds in bytes too (more loosely).
  if (length > max)
    throw new EventStreamError(
      `the event stream sent an event longer than ${max} bytes without ending it; a server-sent event this long is not one the sandbox sends`,
    );
}

/**
 * Where the buffer's first line ends (its CR or LF), or -1, looking from `from` (no line end before it); a
 * trailing CR counts only when the stream ended.
 */
function lineEnd(buffer: string, ended: boolean, from: number): number {
  const lf = buffer.indexOf("\n", from);
  const cr = buffer.indexOf("\r", from);
  if (cr === -1 || (lf !== -1 && lf < cr)) return lf;
  return cr + 1 < buffer.length || ended ? cr : -1;
}
