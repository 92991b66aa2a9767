/**
 * `partner-api webhooks <list|trigger|listen>` (and `npm run webhooks -- …` in this repository): test webhook
 * receivers offline.
 *   list                                     the event types of the contract, one line each
 *   trigger <type> --url <u> --secret <s>    sends the contract's example (or --payload file.json), signed, with
 *           [--payload f] [--speed N] [--id e]  the real retry schedule; --speed N divides the waits
 *   listen --port <p> --secret <s>           a local receiver (the kit's createWebhookHandler) printing type, id
 *                                            and verdict of each delivery
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createWebhookHandler,
  ERROR_PREFIX,
  type WebhookHandlerResult,
  WebhookSignatureError,
  webhookEventTypes,
} from "partner-api-client";
import { formatDuration } from "../common/duration.ts";
import { inert } from "../inert.ts";
import { contractJsonPath, displayPath } from "../paths.ts";
import { readContractWebhooks } from "../webhooks/contract.ts";
import { type AttemptReport, deliverWebhook, newEventId, RETRY_DELAYS_MS } from "../webhooks/deliver.ts";
import { untilStopped } from "./lifecycle.ts";
import {
  type CommandGroup,
  defineCommand,
  describeValue,
  JobFailure,
  parseHost,
  parseInteger,
  parsePositiveNumber,
  UsageError,
} from "./runner.ts";

/** The largest --speed: at 1 000 000 the 5-minute wait is 0.3 ms. */
const MAX_SPEED = 1_000_000;

/** The webhooks commands; `name` is how the user invokes the group (`partner-api webhooks`, `npm run webhooks --`). */
export function webhooksCommands(name: string): CommandGroup {
  return {
    name,
    summary: "test webhook receivers offline: list the event types, trigger a signed event, listen as a receiver",
    commands: {
      list: listCommand(`${name} list`),
      trigger: triggerCommand(`${name} trigger`, name),
      listen: listenCommand(`${name} listen`),
    },
  };
}

function listCommand(name: string) {
  return defineCommand({
    name,
    summary: "the contract's webhook event types, one line each, with the example trigger sends",
    usage: `Usage: ${name}`,
    options: {},
    async run({ io }) {
      const webhooks = await readContractWebhooks();
      const width = Math.max(...webhooks.map((w) => w.type.length));
      for (const webhook of webhooks)
        io.out(`${webhook.type.padEnd(width)}  ${webhook.summary} (example: ${webhook.exampleName})`);
      return `${webhooks.length} event types, from ${displayPath(contractJsonPath)}`;
    },
  });
}

function triggerCommand(name: string, group: string) {
  const schedule = RETRY_DELAYS_MS.map((ms) => formatDuration(ms)).join(", ");
  return defineCommand({
    name,
    summary: "sends one signed event to a receiver, retrying on the real schedule until it answers 2xx",
    usage: `Usage: ${name} <type> --url <receiver> --secret <secret> [--payload file.json] [--speed N] [--id evt_…]

Sends the contract's example of <type> (or the JSON object in --payload as its payload) in a fresh envelope,
signed in X-Signature. While the receiver answers non-2xx or cannot be reached, it retries after
${schedule} (the source's schedule), every attempt with the same bytes.

Options:
  --url <url>         the receiver (http: or https:)
  --secret <secret>   the signing secret
  --payload <file>    a JSON file holding the event's payload (default: the contract's example)
  --speed <n>         divides every wait: 1 is the real schedule, 60 makes the 5-minute wait 5 s
  --id <evt_…>        the event id (default: a fresh evt_ ULID)
  -h, --help          this text

Exit codes: 0 delivered, 1 not delivered after every attempt, 2 bad input. "${group} list" names the types.`,
    options: {
      url: { type: "string" },
      secret: { type: "string" },
      payload: { type: "string" },
      speed: { type: "string" },
      id: { type: "string" },
    },
    positionals: { min: 0, max: 1 },
    async run({ values, positionals, io }) {
      const started = performance.now();
      const type = positionals[0];
      if (!type) throw new UsageError(`missing the event type; "${group} list" shows them`);
      const webhooks = await readContractWebhooks();
      const webhook = webhooks.find((w) => w.type === type);
      if (!webhook)
        throw new UsageError(
          `unknown event type ${describeValue(type)}; known: ${webhooks.map((w) => w.type).join(", ")}`,
        );
      const url = parseReceiverUrl(values.url);
      const secret = values.secret;
      if (!secret) throw new UsageError("missing --secret <signing secret> (or it is empty)");
      const speed = parsePositiveNumber(values.speed, "--speed", MAX_SPEED) ?? 1;
      const id = values.id ?? newEventId();
      if (id === "") throw new UsageError("--id must not be empty");
      const payload = values.payload === undefined ? webhook.example.payload : await readPayload(values.payload);

      const body = JSON.stringify({ id, type, payload, createdAt: new Date().toISOString() });
      const source =
        values.payload === undefined ? `contract example "${webhook.exampleName}"` : `payload from ${values.payload}`;
      io.out(
        `trigger ${type} ${id} (${source}, ${body.length} bytes) → ${url}${speed === 1 ? "" : ` at --speed ${speed}`}`,
      );
      const result = await deliverWebhook({
        url,
        body,
        secret,
        speed,
        onAttempt: (report) => io.out(describeAttempt(report, performance.now() - started)),
      });
      if (!result.delivered) {
        throw new JobFailure(`not delivered: all ${result.attempts.length} attempts failed for ${id}`);
      }
      io.out(
        `delivered ${id} on attempt ${result.attempts.length}/${result.attempts[0]!.of} (${formatDuration(result.ms)})`,
      );
      return `delivered ${type}`;
    },
  });
}

function parseReceiverUrl(url: string | undefined): string {
  if (!url) throw new UsageError("missing --url <receiver>");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url "${url}" is not a URL (e.g. http://127.0.0.1:4242/webhooks)`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`--url "${url}" must be http: or https:, got ${parsed.protocol}`);
  }
  return url;
}

function describeAttempt(report: AttemptReport, atMs: number): string {
  const outcome =
    report.status !== undefined
      ? `${report.status} ${report.statusText ?? ""}`.trim()
      : `unreachable (${report.error})`;
  // The status text and the error come from the receiver: escaped.
  let line = `attempt ${report.attempt}/${report.of}: ${report.ok ? "✓" : "✗"} ${inert(outcome)} in ${formatDuration(report.ms)} (at ${formatDuration(atMs)})`;
  if (report.nextInMs !== undefined && report.nextScheduledMs !== undefined) {
    const scaled =
      report.nextInMs === report.nextScheduledMs ? "" : `, ${formatDuration(report.nextInMs)} at this speed`;
    line += `\n  retry ${report.attempt}/${report.of - 1} in ${formatDuration(report.nextScheduledMs)}${scaled}`;
  }
  return line;
}

async function readPayload(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `cannot read --payload ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--payload ${file} is not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(
      `--payload ${file} must hold a JSON object (the event's payload), got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`,
    );
  }
  return value as Record<string, unknown>;
}

/** Bytes of a refused body kept for the log line (its claimed type and id); the kit reads and judges the body. */
const LOG_TAP_BYTES = 64 * 1024;

function listenCommand(name: string) {
  return defineCommand({
    name,
    summary: "a local receiver that verifies each delivery and prints its type, id and verdict",
    usage: `Usage: ${name} --port <port> --secret <secret> [--secret <older>] [--host <host>]

Answers like a correct receiver (the kit's createWebhookHandler): 200 for a verified event (also a
duplicate id), 401 for a bad signature, 400 for a body that is not an event, 405 for other methods,
413 for a body over 1 MiB. Ctrl-C stops it and prints the counts.

Options:
  --port <port>       port to listen on; 0 picks a free one
  --secret <secret>   the signing secret; repeat it to accept an older one during a rotation
  --host <host>       interface to listen on (default 127.0.0.1)
  --no-exit-with-parent  keep listening after the process that started it (npx, npm run) is gone
  -h, --help          this text`,
    options: {
      port: { type: "string" },
      secret: { type: "string", multiple: true },
      host: { type: "string" },
      "no-exit-with-parent": { type: "boolean" },
    },
    quiet: true,
    async run({ values, io, signal }) {
      const started = performance.now();
      if (values.port === undefined) throw new UsageError("missing --port <port> (0 picks a free port)");
      const port = parseInteger(values.port, "--port", 0, 65_535) ?? 0;
      const host = parseHost(values.host, "--host") ?? "127.0.0.1";
      const secrets = values.secret ?? [];
      if (secrets.length === 0 || secrets.some((s) => s === ""))
        throw new UsageError("missing --secret <signing secret> (or it is empty)");

      const counts = { received: 0, verified: 0, refused: 0 };
      const print = (result: WebhookHandlerResult, tapped: Buffer[]) => {
        counts.received++;
        if (result.status < 300) counts.verified++;
        else counts.refused++;
        const time = new Date().toISOString().slice(11, 23);
        const { type, id } = result.event ?? unverifiedEnvelope(Buffer.concat(tapped));
        const why =
          result.error instanceof WebhookSignatureError
            ? ` (${result.error.reason})`
            : result.error instanceof Error && result.status < 500
              ? ` (${result.error.message.replace(ERROR_PREFIX, "")})`
              : "";
        // The type, the id and the reason come from the sender: escaped, so they cannot move the cursor, clear
        // the screen or forge a line of their own.
        io.out(
          inert(`${time} ${result.status} ${result.verdict} ${type} ${id}${result.event ? "" : " [unverified]"}${why}`),
        );
      };
      // The kit reports each request's result through onResult; the request's own log line is found by context.
      const current = new AsyncLocalStorage<(result: WebhookHandlerResult) => void>();
      const handler = createWebhookHandler({
        secrets,
        // Every known type counts as handled: listen only shows what arrives.
        on: Object.fromEntries(webhookEventTypes.map((type) => [type, () => undefined])),
        onResult: (result) => current.getStore()?.(result),
      });
      const server = createServer((req, res) => {
        const tapped = tap(req);
        // A sender that goes away mid-body (or breaks its chunking) ends that request only: the stream's error is
        // the request's, never the receiver's.
        req.on("error", () => res.destroy());
        current.run(
          (result) => print(result, tapped),
          () =>
            handler.node(req, res).catch((error: Error) => {
              io.err(inert(`dropped a request: ${error.message}`));
              res.destroy();
            }),
        );
      });
      await new Promise<void>((resolve, reject) => {
        server.once("error", (error: NodeJS.ErrnoException) =>
          reject(new JobFailure(`cannot listen on ${host}:${port}: ${error.code ?? error.message}`)),
        );
        server.listen(port, host, resolve);
      });
      const actual = (server.address() as AddressInfo).port;
      const shownHost = host.includes(":") ? `[${host}]` : host;
      io.out(`listening on http://${shownHost}:${actual}/ with ${secrets.length} secret(s); Ctrl-C to stop`);
      await untilStopped(signal, io, !values["no-exit-with-parent"]);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      io.out(
        `stopped: ${counts.received} deliveries, ${counts.verified} accepted, ${counts.refused} refused (${formatDuration(performance.now() - started)})`,
      );
      return undefined;
    },
  });
}

/** Keeps the first bytes of a request for the log line, beside (not instead of) the kit's own reading. */
function tap(req: IncomingMessage): Buffer[] {
  const chunks: Buffer[] = [];
  let kept = 0;
  req.on("data", (chunk: Buffer) => {
    if (kept >= LOG_TAP_BYTES) return;
    chunks.push(chunk);
    kept += chunk.length;
  });
  return chunks;
}

/** The type and id a refused body claims, for the log only: nothing in it is trusted. */
function unverifiedEnvelope(body: Uint8Array): { type: string; id: string } {
  try {
    const value = JSON.parse(Buffer.from(body).toString("utf8")) as { type?: unknown; id?: unknown };
    return {
      type: typeof value.type === "string" ? value.type : "?",
      id: typeof value.id === "string" ? value.id : "?",
    };
  } catch {
    return { type: "?", id: "?" };
  }
}
