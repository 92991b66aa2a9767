/**
 * The devkit's one server-sent-events reader (devkit/src/sse.ts): events split across chunks anywhere, the three
 * line endings, comments and unknown fields, the last event id, an event cut off by the stream's end, and the
 * bound on an event's length (a server that never ends one gets a clear error, not an unbounded buffer).
 */
import { describe, expect, it } from "vitest";
import { EventStreamError, readServerSentEvents, type ServerSentEvent } from "../../devkit/src/sse.ts";

/** A body that sends `chunks` one by one, and says whether the reader cancelled it. */
function body(chunks: (string | Uint8Array)[]): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  const encoder = new TextEncoder();
  let index = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

async function all(chunks: (string | Uint8Array)[], maxEventBytes?: number): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  const options = maxEventBytes === undefined ? {} : { maxEventBytes };
  for await (const event of readServerSentEvents(body(chunks).stream, options)) events.push(event);
  return events;
}

describe("readServerSentEvents", () => {
  it("reads the sandbox's request events, with their ids, whatever the chunks", async () => {
    const text =
      ': following the request log\n\nevent: request\nid: 41\ndata: {"id":41}\n\nevent: request\nid: 42\ndata: {"id":42}\n\n';
    const expected = [
      { event: "request", id: "41", data: '{"id":41}' },
      { event: "request", id: "42", data: '{"id":42}' },
    ];
    expect(await all([text])).toEqual(expected);
    // One character a chunk: every boundary falls inside a line, a field or the blank line.
    expect(await all([...text])).toEqual(expected);
  });

  it("takes LF, CRLF and CR line ends (a CRLF split between chunks is one end), and joins data lines", async () => {
    expect(await all(["data: a\r\ndata: b\r", "\n\r\ndata: c\rdata: d\r\r"])).toEqual([
      { event: "message", id: undefined, data: "a\nb" },
      { event: "message", id: undefined, data: "c\nd" },
    ]);
  });

  it("skips comments, unknown fields and events without data; drops an event the stream's end cuts off", async () => {
    expect(
      await all(["retry: 10\nevent: ping\n\n:comment\nfoo: bar\ndata:no space\nid: 7\n\nevent: request\ndata: cut"]),
    ).toEqual([{ event: "message", id: "7", data: "no space" }]);
  });

  it("decodes UTF-8 split inside a character", async () => {
    const bytes = new TextEncoder().encode("data: café ✓\n\n");
    expect(await all([bytes.slice(0, 10), bytes.slice(10, 13), bytes.slice(13)])).toEqual([
      { event: "message", id: undefined, data: "café ✓" },
    ]);
  });

  it("ends with an error naming the limit when an event grows past it, line by line or in one line", async () => {
    await expect(all(["data: 0123456789\n".repeat(10)], 100)).rejects.toThrow(EventStreamError);
    await expect(all(["data: ", "x".repeat(60), "x".repeat(60)], 100)).rejects.toThrow(
      /longer than 100 bytes without ending it/,
    );
    // Comments count too: a server sending only comments without a blank line is bounded the same way.
    await expect(all([":keep\n".repeat(30)], 100)).rejects.toThrow(EventStreamError);
    // Events under the limit, however many, are fine.
    expect(await all(["data: 0123456789\n\n".repeat(50)], 100)).toHaveLength(50);
    await expect(all([], 0)).rejects.toThrow(/maxEventBytes must be a whole number above 0/);
  });

  it("cancels the body when the reader stops early", async () => {
    const source = body(["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"]);
    for await (const event of readServerSentEvents(source.stream)) if (event.data === "1") break;
    expect(source.cancelled()).toBe(true);
  });
});
