/**
 * `npm run webhooks -- <command>`: test webhook receivers offline.
 *   list                                     the event types of the contract, one line each
 *   trigger <type> --url <u> --secret <s>    send the contract's example (or --payload file.json), signed, with
 *           [--payload f] [--speed N] [--id e]  the real retry schedule; --speed N divides the waits
 *   listen --port <p> --secret <s>           a local receiver printing type, id and verdict of each delivery
 * Exit codes: 0 done, 1 not delivered / failed, 2 bad input.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { webhookEventTypes } from "../src/webhooks/events.ts";
import {
  createWebhookHandler,
  WEBHOOK_ERROR_PREFIX,
  type WebhookHandlerResult,
  WebhookSignatureError,
} from "../src/webhooks/index.ts";
import { fail, formatDuration } from "./lib/log.ts";
import { readContractWebhooks } from "./lib/webhooks/contract.ts";
import { type AttemptReport, deliverWebhook, newEventId } from "./lib/webhooks/deliver.ts";

const USAGE = `usage:
  npm run webhooks -- list
  npm run webhooks -- trigger <type> --url <receiver> --secret <s> [--payload file.json] [--speed N] [--id evt_…]
  npm run webhooks -- listen --port <p> --secret <s> [--secret <older>]`;

const started = performance.now();
const [command, ...rest] = process.argv.slice(2);

function usageError(message: string): never {
  fail(`${message}\n${USAGE}`, 2);
}

function parse(
  args: string[],
  options: ParseArgsConfig["options"],
): { values: Record<string, string | string[] | boolean | undefined>; positionals: string[] } {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true }) as never;
  } catch (error) {
    usageError(`${command}: ${(error as Error).message}`);
  }
}

try {
  switch (command) {
    case "list":
      await list(rest);
      break;
    case "trigger":
      await trigger(rest);
      break;
    case "listen":
      await listen(rest);
      break;
    case undefined:
      usageError("missing command (list, trigger or listen)");
      break;
    default:
      usageError(`unknown command "${command}"; expected list, trigger or listen`);
  }
} catch (error) {
  fail((error as Error).message);
}

async function list(args: string[]): Promise<void> {
  if (args.length > 0) usageError(`list takes no arguments, got ${args.map((a) => `"${a}"`).join(" ")}`);
  const webhooks = await readContractWebhooks();
  const width = Math.max(...webhooks.map((w) => w.type.length));
  for (const webhook of webhooks)
    console.log(`${webhook.type.padEnd(width)}  ${webhook.summary} (example: ${webhook.exampleName})`);
  console.log(
    `${webhooks.length} event types, from generated/openapi.json (${formatDuration(performance.now() - started)})`,
  );
}

async function trigger(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    url: { type: "string" },
    secret: { type: "string" },
    payload: { type: "string" },
    speed: { type: "string" },
    id: { type: "string" },
  });
  const type = positionals[0];
  if (!type) usageError("trigger: missing the event type; run `npm run webhooks -- list` to see them");
  if (positionals.length > 1) usageError(`trigger: unexpected argument "${positionals[1]}"`);
  const webhooks = await readContractWebhooks();
  const webhook = webhooks.find((w) => w.type === type);
  if (!webhook) usageError(`trigger: unknown event type "${type}"; known: ${webhooks.map((w) => w.type).join(", ")}`);
  const url = values.url as string | undefined;
  if (!url) usageError("trigger: missing --url <receiver>");
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    usageError(`trigger: --url "${url}" is not a URL (e.g. http://127.0.0.1:4242/webhooks)`);
  }
  if (parsedUrl.protocol !== "http:" && parsedUrl.protocol !== "https:") {
    usageError(`trigger: --url "${url}" must be http: or https:, got ${parsedUrl.protocol}`);
  }
  const secret = values.secret as string | undefined;
  if (!secret) usageError("trigger: missing --secret <signing secret> (or it is empty)");
  const speedText = (values.speed as string | undefined) ?? "1";
  const speed = Number(speedText);
  if (!/^\d+(\.\d+)?$/.test(speedText) || !Number.isFinite(speed) || speed <= 0) {
    usageError(`trigger: --speed "${speedText}" must be a positive number (1 = the real schedule, 1000 = waits in ms)`);
  }
  const id = (values.id as string | undefined) ?? newEventId();
  if (id === "") usageError("trigger: --id must not be empty");
  const payload = values.payload === undefined ? webhook.example.payload : await readPayload(values.payload as string);

  const body = JSON.stringify({ id, type, payload, createdAt: new Date().toISOString() });
  const source =
    values.payload === undefined ? `contract example "${webhook.exampleName}"` : `payload from ${values.payload}`;
  console.log(
    `trigger ${type} ${id} (${source}, ${body.length} bytes) → ${url}${speed === 1 ? "" : ` at --speed ${speed}`}`,
  );
  const result = await deliverWebhook({ url, body, secret, speed, onAttempt: printAttempt });
  const took = formatDuration(result.ms);
  if (result.delivered) {
    console.log(`delivered ${id} on attempt ${result.attempts.length}/${result.attempts[0]!.of} (${took})`);
  } else {
    fail(`not delivered: all ${result.attempts.length} attempts failed for ${id} (${took})`, 1);
  }
}

function printAttempt(report: AttemptReport): void {
  const outcome =
    report.status !== undefined
      ? `${report.status} ${report.statusText ?? ""}`.trim()
      : `unreachable (${report.error})`;
  const at = formatDuration(performance.now() - started);
  console.log(
    `attempt ${report.attempt}/${report.of}: ${report.ok ? "✓" : "✗"} ${outcome} in ${formatDuration(report.ms)} (at ${at})`,
  );
  if (report.nextInMs !== undefined && report.nextScheduledMs !== undefined) {
    const scaled =
      report.nextInMs === report.nextScheduledMs ? "" : `, ${formatDuration(report.nextInMs)} at this speed`;
    console.log(`  retry ${report.attempt}/${report.of - 1} in ${formatDuration(report.nextScheduledMs)}${scaled}`);
  }
}

async function readPayload(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    usageError(
      `trigger: cannot read --payload ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    usageError(`trigger: --payload ${file} is not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    usageError(
      `trigger: --payload ${file} must hold a JSON object (the event's payload), got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`,
    );
  }
  return value as Record<string, unknown>;
}

async function listen(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { port: { type: "string" }, secret: { type: "string", multiple: true } });
  if (positionals.length > 0) usageError(`listen: unexpected argument "${positionals[0]}"`);
  const portText = values.port as string | undefined;
  if (portText === undefined) usageError("listen: missing --port <p> (0 picks a free port)");
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    usageError(`listen: --port "${portText}" must be an integer from 0 to 65535`);
  const secrets = (values.secret as string[] | undefined) ?? [];
  if (secrets.length === 0 || secrets.some((s) => s === ""))
    usageError("listen: missing --secret <signing secret> (or it is empty)");

  const handler = createWebhookHandler({
    secrets,
    // Every known type counts as handled: listen only shows what arrives.
    on: Object.fromEntries(webhookEventTypes.map((type) => [type, () => undefined])),
  });
  const counts = { received: 0, verified: 0, refused: 0 };
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const header = req.headers["x-signature"];
    const result: WebhookHandlerResult =
      req.method !== "POST"
        ? { status: 405, verdict: "method_not_allowed" }
        : body === undefined
          ? { status: 413, verdict: "too_large", error: new Error(`body over ${LISTEN_MAX_BODY_BYTES} bytes`) }
          : await handler.handle(body, Array.isArray(header) ? undefined : header);
    printDelivery(result, body ?? new Uint8Array(0));
    res.writeHead(result.status, { "content-type": "application/json" });
    res.end(JSON.stringify({ verdict: result.verdict }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new Error(`listen: cannot listen on 127.0.0.1:${port}: ${error.code ?? error.message}`)),
    );
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  console.log(`listening on http://127.0.0.1:${actual}/ with ${secrets.length} secret(s); Ctrl-C to stop`);

  function printDelivery(result: WebhookHandlerResult, body: Uint8Array): void {
    counts.received++;
    if (result.status < 300) counts.verified++;
    else counts.refused++;
    const time = new Date().toISOString().slice(11, 23);
    const { type, id } = result.event ?? unverifiedEnvelope(body);
    const why =
      result.error instanceof WebhookSignatureError
        ? ` (${result.error.reason})`
        : result.error instanceof Error && result.status < 500
          ? ` (${result.error.message.replace(`${WEBHOOK_ERROR_PREFIX} `, "")})`
          : "";
    console.log(`${time} ${result.status} ${result.verdict} ${type} ${id}${result.event ? "" : " [unverified]"}${why}`);
  }

  const stop = () => {
    server.close();
    console.log(
      `stopped: ${counts.received} deliveries, ${counts.verified} accepted, ${counts.refused} refused (${formatDuration(performance.now() - started)})`,
    );
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

const LISTEN_MAX_BODY_BYTES = 1024 * 1024;

/** The body, or undefined when it is over the limit. */
function readBody(req: IncomingMessage): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= LISTEN_MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size <= LISTEN_MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    req.on("error", reject);
  });
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
