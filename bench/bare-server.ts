/**
 * The bare side of the mock benchmark: a `node:http` server that answers recorded responses byte for byte.
 * Started as its own process (like Prism), with the recordings as JSON on stdin; prints `listening <port>`.
 * A request is matched on method, URL and body; anything else gets 404.
 */
import { createServer } from "node:http";

export interface RecordedResponse {
  method: string;
  url: string;
  requestBody: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => (input += chunk));
process.stdin.on("end", () => {
  const recordings = JSON.parse(input) as RecordedResponse[];
  // Everything an answer needs is made here, once: per request the server only looks it up and writes it (its
  // headers with their length in one object, not spread afresh on each call, which costs V8 microseconds).
  const byKey = new Map(
    recordings.map((r) => {
      const bytes = Buffer.from(r.body, "utf8");
      const headers = { ...r.headers, "content-length": bytes.byteLength };
      return [`${r.method} ${r.url} ${r.requestBody}`, { status: r.status, headers, bytes }];
    }),
  );
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const recorded = byKey.get(`${request.method} ${request.url} ${Buffer.concat(chunks).toString("utf8")}`);
      if (!recorded) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(recorded.status, recorded.headers);
      response.end(recorded.bytes);
    });
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
  });
  // Ends with its parent: the parent holds the other end of stdout.
  process.stdout.on("error", () => process.exit(0));
});
