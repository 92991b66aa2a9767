/**
 * The hostile-request corpus every server of the repository is run against (test/devkit/hostile-servers.slow.test.ts):
 * malformed and abandoned requests written raw on a socket, as no HTTP client would send them. Aborted bodies
 * (`Content-Length: 100`, one byte, close), bad and cut chunking, both lengths at once, deep JSON (5,000 levels:
 * Prism's logger overflowed its stack on it), broken request lines and headers, a huge declared length, an
 * `Expect: 100-continue` left hanging. Each is answered or dropped; `runCorpus` counts what came back and checks
 * the server answers a plain request after every one.
 */
import net from "node:net";

/** Where a server takes a request with a body, and what it needs on each (an API key, a content type). */
export interface CorpusTarget {
  method: string;
  path: string;
  headers?: Record<string, string>;
}

export interface HostileRequest {
  name: string;
  /** The bytes written, in order; a pause of `pauseMs` between parts. */
  parts: (string | Buffer)[];
  /** Close the socket after writing (an abandoned request) rather than wait for an answer. */
  abandon: boolean;
}

const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** The corpus for one target: the same requests, at its path with its headers. */
export function hostileRequests(target: CorpusTarget): HostileRequest[] {
  const extra = Object.entries(target.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const head = (lines: string) => `${target.method} ${target.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}${lines}`;
  const json = "Content-Type: application/json\r\n";
  const withBody = (body: string, more = "") =>
    `${head(`${json}Content-Length: ${Buffer.byteLength(body)}\r\n${more}`)}\r\n${body}`;
  return [
    {
      name: "aborted body: Content-Length 100, one byte, close",
      parts: [head(`${json}Content-Length: 100\r\n\r\n{`)],
      abandon: true,
    },
    {
      name: "aborted body after half of it",
      parts: [head(`${json}Content-Length: 4096\r\n\r\n`), "x".repeat(2048)],
      abandon: true,
    },
    {
      name: "chunked, invalid chunk size",
      parts: [head(`${json}Transfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n`)],
      abandon: false,
    },
    {
      name: "chunked, cut inside a chunk, close",
      parts: [head(`${json}Transfer-Encoding: chunked\r\n\r\n10\r\n{"a"`)],
      abandon: true,
    },
    {
      name: "chunked, chunk longer than its size",
      parts: [head(`${json}Transfer-Encoding: chunked\r\n\r\n2\r\n{"a":1}\r\n0\r\n\r\n`)],
      abandon: false,
    },
    {
      name: "chunked, no final chunk, close",
      parts: [head(`${json}Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n`)],
      abandon: true,
    },
    {
      name: "Content-Length and Transfer-Encoding both",
      parts: [head(`${json}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`)],
      abandon: false,
    },
    {
      name: "two different Content-Lengths",
      parts: [head(`${json}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`)],
      abandon: false,
    },
    { name: "negative Content-Length", parts: [head(`${json}Content-Length: -1\r\n\r\n`)], abandon: false },
    { name: "Content-Length not a number", parts: [head(`${json}Content-Length: ten\r\n\r\n`)], abandon: false },
    {
      name: "Content-Length of a terabyte, a few bytes, close",
      parts: [head(`${json}Content-Length: 1099511627776\r\n\r\n{"a":`)],
      abandon: true,
    },
    { name: "5,000-deep JSON array", parts: [withBody(deepArray(5_000))], abandon: false },
    { name: "20,000-deep JSON array", parts: [withBody(deepArray(20_000))], abandon: false },
    { name: "5,000-deep JSON object", parts: [withBody(deepObject(5_000))], abandon: false },
    { name: "JSON cut short", parts: [withBody('{"legalName":')], abandon: false },
    {
      name: "body not UTF-8",
      parts: [head(`${json}Content-Length: 4\r\n\r\n`), Buffer.from([0xff, 0xfe, 0x00, 0xc3])],
      abandon: false,
    },
    {
      name: "Expect: 100-continue, then nothing, close",
      parts: [head(`${json}Content-Length: 10\r\nExpect: 100-continue\r\n\r\n`)],
      abandon: true,
    },
    {
      name: "headers never finished, close",
      parts: [`${target.method} ${target.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: yes`],
      abandon: true,
    },
    {
      name: "request line garbage",
      parts: ["\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http\r\n\r\n"],
      abandon: false,
    },
    { name: "header without a colon", parts: [head("NoColonHere\r\n\r\n")], abandon: false },
    { name: "header value with a NUL", parts: [head("X-Bad: a\x00b\r\n\r\n")], abandon: false },
    { name: "32 KB of one header", parts: [head(`X-Big: ${"a".repeat(32_768)}\r\n\r\n`)], abandon: false },
    {
      name: "NUL and percent junk in the path",
      parts: [`GET /%00/%E0%A4%A/..%2f..%2f HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`],
      abandon: false,
    },
    { name: "HTTP/1.0 without Host", parts: [`GET / HTTP/1.0\r\n\r\n`], abandon: false },
    { name: "unknown HTTP version", parts: [`GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n`], abandon: false },
    {
      name: "pipelined: a good request, then an aborted one",
      parts: [withBody("{}"), head(`${json}Content-Length: 50\r\n\r\n{`)],
      abandon: true,
    },
    { name: "socket opened and closed at once", parts: [], abandon: true },
  ];
}

export interface CorpusOutcome {
  name: string;
  /** The status of the first answer, or undefined when the server dropped the request (closed, or nothing in time). */
  status?: number;
}

export interface CorpusResult {
  sent: number;
  answered: number;
  dropped: number;
  serverErrors: CorpusOutcome[];
  outcomes: CorpusOutcome[];
}

/** Writes one hostile request raw and reads the status of the first answer, if any comes within `waitMs`. */
export function sendRaw(port: number, request: HostileRequest, waitMs = 3_000): Promise<CorpusOutcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve(match ? { name: request.name, status: Number(match[1]) } : { name: request.name });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      // A 100 Continue is not the answer.
      if (/^HTTP\/1\.[01] 100/.test(text)) text = text.replace(/^HTTP\/1\.[01] 100[^\n]*\n\r?\n/, "");
      if (/^HTTP\/1\.[01] \d{3}/.test(text)) finish();
    });
    socket.on("error", finish);
    socket.on("close", finish);
    socket.on("connect", async () => {
      for (const part of request.parts) {
        socket.write(part);
        await new Promise((wait) => setTimeout(wait, 20));
      }
      if (request.abandon) setTimeout(finish, 50);
    });
  });
}

/**
 * Sends the corpus to the server at `port`, one request at a time, and after each checks that `alive()` still
 * says the server answers (a plain request of the caller's). Throws naming the request after which it stopped.
 */
export async function runCorpus(
  port: number,
  target: CorpusTarget,
  alive: () => Promise<boolean>,
  rounds = 1,
): Promise<CorpusResult> {
  const outcomes: CorpusOutcome[] = [];
  for (let round = 0; round < rounds; round++)
    for (const request of hostileRequests(target)) {
      outcomes.push(await sendRaw(port, request));
      if (!(await alive())) throw new Error(`the server stopped answering after "${request.name}"`);
    }
  const answered = outcomes.filter((outcome) => outcome.status !== undefined).length;
  return {
    sent: outcomes.length,
    answered,
    dropped: outcomes.length - answered,
    serverErrors: outcomes.filter((outcome) => (outcome.status ?? 0) >= 500),
    outcomes,
  };
}
