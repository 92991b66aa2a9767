/**
 * `partner-api sandbox <command>`: drives a running sandbox through its control API, in the spirit of
 * `stripe trigger`. Every command takes --url (the sandbox, default http://127.0.0.1:4020; env SANDBOX_URL)
 * and --api-key (the account, default "sandbox"; env SANDBOX_API_KEY).
 *   clock [status] | clock advance <1h|30m|2d|ISO time> | clock freeze | clock resume
 *   kyc <companyId> <status>      terms <companyId>      reset
 *   route open <companyId> <onramp|offramp>      deposit <routeId> <amount>
 *   trigger <event type>      events      logs [--follow]      faults add|list|remove|clear
 *   scenario [<name|file>]
 * `trigger` and `scenario` run the shipped workflows (openapi/workflows/): the one for an event type is the first
 * whose `x-webhooks` lists it.
 */
import { stat } from "node:fs/promises";
import { ApiError, webhookEventTypes } from "partner-api-client";
import type { components } from "../../../generated/sandbox.js";
import { readArazzoFile, shippedWorkflows, WorkflowError } from "../arazzo/document.ts";
import { formatDuration, parseDuration } from "../common/duration.ts";
import type { SandboxControl } from "../sandbox/control-client.ts";
import { createSandboxControl, DEFAULT_SANDBOX_PORT, sandboxRouter } from "../sandbox/index.ts";
import {
  type CliIO,
  type CommandGroup,
  defineCommand,
  describeValue,
  JobFailure,
  optionOrEnv,
  parseInteger,
  UsageError,
} from "./runner.ts";

type Schemas = components["schemas"];
type SandboxRequest = Schemas["SandboxRequest"];

export const DEFAULT_SANDBOX_URL = `http://127.0.0.1:${DEFAULT_SANDBOX_PORT}`;
export const DEFAULT_CONTROL_API_KEY = "sandbox";

/** The options every control command takes. */
const CONNECTION = { url: { type: "string" }, "api-key": { type: "string" } } as const;
const CONNECTION_USAGE = `  --url <url>          the sandbox (default ${DEFAULT_SANDBOX_URL}; env SANDBOX_URL)
  --api-key <key>      the account to act as (default "${DEFAULT_CONTROL_API_KEY}"; env SANDBOX_API_KEY)`;
const JSON_USAGE = "  --json               print the control API's answer as JSON instead";

interface Connection {
  url: string;
  apiKey: string | undefined;
  control: SandboxControl<true>;
}

/** The sandbox and the account a command talks to; `allAccounts` drops the key (the whole sandbox). */
function connect(values: { url?: string; "api-key"?: string }, allAccounts = false): Connection {
  const urlOption = optionOrEnv(values.url, "--url", "SANDBOX_URL");
  const url = (urlOption.value ?? DEFAULT_SANDBOX_URL).replace(/\/+$/, "");
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    throw new UsageError(
      `${urlOption.name} must be the sandbox's http(s) URL (e.g. ${DEFAULT_SANDBOX_URL}), got ${describeValue(url)}`,
    );
  const keyOption = optionOrEnv(values["api-key"], "--api-key", "SANDBOX_API_KEY");
  if (keyOption.value === "") throw new UsageError(`${keyOption.name} must not be empty`);
  const apiKey = allAccounts ? undefined : (keyOption.value ?? DEFAULT_CONTROL_API_KEY);
  return {
    url,
    apiKey,
    control: createSandboxControl({ url, ...(apiKey !== undefined ? { apiKey } : {}), throwOnError: true }),
  };
}

/**
 * Runs one control call and turns its failure into the runner's verdict: the sandbox refusing the input
 * (an invalid request, an unknown id) is bad input (exit 2), any other refusal the job's "no" (exit 1), and an
 * unreachable sandbox says how to start one (exit 1).
 */
async function call<T>(connection: Connection, what: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof ApiError) {
      const problem = error.body as { type?: string; detail?: string } | undefined;
      const detail = problem?.detail ?? JSON.stringify(error.body);
      const message = `${what}: the sandbox answered ${error.status}: ${detail}`;
      if (error.status === 404 || error.status === 401 || problem?.type?.endsWith("/invalid-request"))
        throw new UsageError(message);
      throw new JobFailure(message);
    }
    const { cause } = error as { cause?: { code?: string; message?: string } };
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new JobFailure(
      `${what}: no sandbox answers at ${connection.url} (${why}); start one with \`npx partner-api sandbox\` or pass --url`,
    );
  }
}

export { parseDuration };

const printJson = (io: CliIO, value: unknown) => io.out(JSON.stringify(value, null, 2));

function describeClock(clock: Schemas["Clock"]): string {
  const pending =
    clock.pendingTasks === 0 ? "nothing pending" : `${clock.pendingTasks} pending, next due ${clock.nextDueAt}`;
  return `clock ${clock.now} (${clock.frozen ? "frozen" : clock.speed === 1 ? "running" : `running at ${clock.speed}x`}), ${clock.status}: ${pending}`;
}

function clockCommands(name: string): CommandGroup {
  const simple = (verb: "status" | "freeze" | "resume", summary: string) =>
    defineCommand({
      name: `${name} ${verb}`,
      summary,
      usage: `Usage: ${name} ${verb} [--url <url>] [--json]\n\nOptions:\n${CONNECTION_USAGE}\n${JSON_USAGE}`,
      options: { ...CONNECTION, json: { type: "boolean" } },
      async run({ values, io }) {
        const connection = connect(values);
        const { data } = await call(connection, `clock ${verb}`, () =>
          verb === "status"
            ? connection.control.GET("/_sandbox/clock")
            : connection.control.POST(verb === "freeze" ? "/_sandbox/clock/freeze" : "/_sandbox/clock/resume"),
        );
        if (values.json) printJson(io, data);
        else io.out(describeClock(data));
        return `clock ${verb === "status" ? "read" : verb === "freeze" ? "frozen" : "resumed"}`;
      },
    });
  return {
    name,
    summary: "read the sandbox clock, advance it by a duration or to a time, freeze or resume it",
    default: "status",
    commands: {
      status: simple("status", "the clock's reading, whether it is frozen, and whether all due work has run"),
      advance: defineCommand({
        name: `${name} advance`,
        summary: "moves the clock forward; every transition and webhook retry falling due runs before it returns",
        usage: `Usage: ${name} advance <duration | time> [--url <url>] [--json]

<duration> is 90s, 30m, 1h, 2d, 1h30m, 500ms or plain seconds; <time> an ISO 8601 time to move to
(not earlier than the clock, at most a year ahead).

Options:
${CONNECTION_USAGE}
${JSON_USAGE}`,
        options: { ...CONNECTION, json: { type: "boolean" } },
        positionals: { min: 1, max: 1 },
        async run({ values, positionals, io }) {
          const [when] = positionals as [string];
          const ms = parseDuration(when);
          const to =
            ms === undefined && /^\d{4}-\d{2}-\d{2}T/.test(when) && !Number.isNaN(Date.parse(when)) ? when : undefined;
          if (ms === undefined && to === undefined)
            throw new UsageError(
              `${describeValue(when)} is neither a duration (90s, 30m, 1h, 2d, 1h30m) nor an ISO 8601 time (2026-11-23T09:00:00Z)`,
            );
          const connection = connect(values);
          const body = to !== undefined ? { to } : { seconds: ms! / 1000 };
          const { data } = await call(connection, "clock advance", () =>
            connection.control.POST("/_sandbox/clock/advance", { body }),
          );
          if (values.json) printJson(io, data);
          else io.out(describeClock(data));
          return `clock advanced ${to !== undefined ? `to ${to}` : `by ${formatDuration(ms!)}`}`;
        },
      }),
      freeze: simple("freeze", "stops the clock at its reading until it is advanced or resumed"),
      resume: simple("resume", "lets a frozen clock follow real time again from its reading"),
    },
  };
}

function kycCommand(name: string) {
  return defineCommand({
    name,
    summary: "sets a company's verification status (company.kyc_status_changed fires on a change)",
    usage: `Usage: ${name} <companyId> <status> [--url <url>] [--api-key <key>]

<status>: ${["not_started", "incomplete", "awaiting_questionnaire", "awaiting_ubo", "under_review", "approved", "rejected", "paused", "offboarded"].join(", ")}.
The company must have been onboarded with Swap.

Options:
${CONNECTION_USAGE}`,
    options: CONNECTION,
    positionals: { min: 2, max: 2 },
    async run({ values, positionals, io }) {
      const [companyId, kycStatus] = positionals as [string, Schemas["KycStatus"]];
      const connection = connect(values);
      const { data } = await call(connection, `kyc ${companyId}`, () =>
        connection.control.POST("/_sandbox/companies/{companyId}/kyc-status", {
          params: { path: { companyId } },
          body: { kycStatus },
        }),
      );
      io.out(
        `company ${companyId} (${data.company.name}): kycStatus ${data.company.swap?.kycStatus}, terms ${data.company.swap?.tosAccepted ? "accepted" : "not accepted"}`,
      );
      return `verification set to ${kycStatus}`;
    },
  });
}

function termsCommand(name: string) {
  return defineCommand({
    name,
    summary: "accepts a company's terms of service (or withdraws them with --decline)",
    usage: `Usage: ${name} <companyId> [--decline] [--url <url>] [--api-key <key>]

Options:
  --decline            set the terms back to not accepted
${CONNECTION_USAGE}`,
    options: { ...CONNECTION, decline: { type: "boolean" } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, io }) {
      const [companyId] = positionals as [string];
      const connection = connect(values);
      const tosAccepted = !values.decline;
      const { data } = await call(connection, `terms ${companyId}`, () =>
        connection.control.POST("/_sandbox/companies/{companyId}/terms-acceptance", {
          params: { path: { companyId } },
          body: { tosAccepted },
        }),
      );
      io.out(
        `company ${companyId} (${data.company.name}): terms ${tosAccepted ? "accepted" : "not accepted"}, kycStatus ${data.company.swap?.kycStatus}`,
      );
      return tosAccepted ? "terms accepted" : "terms declined";
    },
  });
}

function routeCommands(name: string): CommandGroup {
  return {
    name,
    summary: "open payment routes",
    commands: {
      open: defineCommand({
        name: `${name} open`,
        summary: "opens an on-ramp or off-ramp route for a company (payment_route.created fires)",
        usage: `Usage: ${name} open <companyId> <onramp|offramp> [--currency <code>] [--fee <percent>] [--inactive]
       [--force] [--url <url>] [--api-key <key>] [--json]

A route opens only for a company whose verification is approved and whose terms are accepted;
--force opens it anyway.

Options:
  --currency <code>    the settlement currency (default USDC on-ramp, USD off-ramp)
  --fee <percent>      the route's fee, 0 to 100 (default 0.5)
  --inactive           open it inactive (it refuses deposits)
  --force              open it although the company is not cleared
${CONNECTION_USAGE}
${JSON_USAGE}`,
        options: {
          ...CONNECTION,
          currency: { type: "string" },
          fee: { type: "string" },
          inactive: { type: "boolean" },
          force: { type: "boolean" },
          json: { type: "boolean" },
        },
        positionals: { min: 2, max: 2 },
        async run({ values, positionals, io }) {
          const [companyId, type] = positionals as [string, string];
          if (type !== "onramp" && type !== "offramp")
            throw new UsageError(`the route type must be onramp or offramp, got ${describeValue(type)}`);
          const feePercent = values.fee === undefined ? undefined : Number(values.fee);
          if (feePercent !== undefined && !(feePercent >= 0 && feePercent <= 100))
            throw new UsageError(`--fee must be a percentage from 0 to 100, got ${describeValue(values.fee)}`);
          const connection = connect(values);
          const { data } = await call(connection, `route open ${companyId}`, () =>
            connection.control.POST("/_sandbox/companies/{companyId}/payment-routes", {
              params: { path: { companyId } },
              // Fields left out take the control contract's defaults.
              body: {
                type,
                ...(values.currency !== undefined ? { currency: values.currency } : {}),
                ...(feePercent !== undefined ? { feePercent } : {}),
                ...(values.inactive ? { status: "inactive" as const } : {}),
                ...(values.force ? { force: true } : {}),
              } as Schemas["CreatePaymentRouteRequest"],
            }),
          );
          const route = data.paymentRoute ?? {};
          if (values.json) printJson(io, data);
          else
            io.out(
              `route ${route.id}: ${route.type} ${route.status}, ${route.source?.currency} → ${route.currency}, fee ${route.feePercent} %, deposit address ${route.depositAddress}`,
            );
          return `${type} route opened`;
        },
      }),
    },
  };
}

function depositCommand(name: string) {
  return defineCommand({
    name,
    summary: "makes money land on a route: a transaction and payment_route.transaction.created",
    usage: `Usage: ${name} <routeId> <amount> [--sender <name>] [--force] [--url <url>] [--api-key <key>] [--json]

<amount> is in the route's source currency (fiat on an on-ramp, the stablecoin on an off-ramp).

Options:
  --sender <name>      the payer's name (default "Sandbox Payer")
  --force              take it although the route's company is not cleared
${CONNECTION_USAGE}
${JSON_USAGE}`,
    options: { ...CONNECTION, sender: { type: "string" }, force: { type: "boolean" }, json: { type: "boolean" } },
    positionals: { min: 2, max: 2 },
    async run({ values, positionals, io }) {
      const [routeId, amountText] = positionals as [string, string];
      const amount = Number(amountText);
      if (!/^\d+(\.\d+)?$/.test(amountText) || !(amount > 0))
        throw new UsageError(`the amount must be a number above 0, got ${describeValue(amountText)}`);
      const connection = connect(values);
      const { data } = await call(connection, `deposit on ${routeId}`, () =>
        connection.control.POST("/_sandbox/payment-routes/{routeId}/deposits", {
          params: { path: { routeId } },
          body: {
            amount,
            ...(values.sender !== undefined ? { senderName: values.sender } : {}),
            ...(values.force ? { force: true } : {}),
          } as Schemas["CreateDepositRequest"],
        }),
      );
      const transaction = data.transaction ?? {};
      if (values.json) printJson(io, data);
      else
        io.out(
          `transaction ${transaction.id}: ${transaction.type} ${transaction.amount} ${transaction.currency}, ${transaction.status}`,
        );
      return `deposit of ${amountText} landed`;
    },
  });
}

/** The shipped workflow a trigger of `type` runs: the first whose `x-webhooks` lists it. */
export function triggerWorkflow(type: string): string | undefined {
  for (const [id, { workflow }] of shippedWorkflows(sandboxRouter()))
    if (workflow["x-webhooks"]?.includes(type)) return id;
  return undefined;
}

function triggerCommand(name: string) {
  return defineCommand({
    name,
    summary: "makes an event type fire by doing what causes it (a company onboarded, a route opened…)",
    usage: `Usage: ${name} <event type> [--url <url>] [--api-key <key>] [--json]

Event types: ${webhookEventTypes.join(", ")}.
Runs the shipped workflow that causes the event as a scenario (the first whose x-webhooks lists it; a new
company each time), then prints every event it fired; each goes to the account's webhook endpoints
subscribed to its type.

Options:
${CONNECTION_USAGE}
${JSON_USAGE}`,
    options: { ...CONNECTION, json: { type: "boolean" } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, io }) {
      const [type] = positionals as [string];
      const workflowId = webhookEventTypes.includes(type as (typeof webhookEventTypes)[number])
        ? triggerWorkflow(type)
        : undefined;
      if (workflowId === undefined)
        throw new UsageError(`unknown event type ${describeValue(type)}; known: ${webhookEventTypes.join(", ")}`);
      const connection = connect(values);
      const before = await call(connection, "trigger", () => connection.control.GET("/_sandbox/events"));
      const seen = new Set(before.data.events.map((event) => event.id));
      await call(connection, `trigger ${type} (workflow ${workflowId})`, () =>
        connection.control.POST("/_sandbox/scenarios", { body: { name: workflowId } }),
      );
      const after = await call(connection, "trigger", () => connection.control.GET("/_sandbox/events"));
      const fired = after.data.events.filter((event) => !seen.has(event.id)).reverse();
      if (values.json) printJson(io, fired);
      else
        for (const event of fired) io.out(`${event.id} ${event.type} ${JSON.stringify(event.payload).slice(0, 120)}`);
      if (!fired.some((event) => event.type === type)) throw new JobFailure(`${type} did not fire`);
      return `fired ${fired.length} event(s), ${type} among them (workflow ${workflowId})`;
    },
  });
}

function eventsCommand(name: string) {
  return defineCommand({
    name,
    summary: "lists the account's webhook events, newest last, with each delivery attempt",
    usage: `Usage: ${name} [--type <event type>] [--limit <n>] [--url <url>] [--api-key <key>] [--json]

Options:
  --type <type>        only events of this type
  --limit <n>          the newest n (default 20, at most 1000)
${CONNECTION_USAGE}
${JSON_USAGE}`,
    options: { ...CONNECTION, type: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } },
    async run({ values, io }) {
      const limit = parseInteger(values.limit, "--limit", 1, 1000) ?? 20;
      const connection = connect(values);
      const { data } = await call(connection, "events", () => connection.control.GET("/_sandbox/events"));
      const events = data.events
        .filter((event) => values.type === undefined || event.type === values.type)
        .slice(0, limit)
        .reverse();
      if (values.json) printJson(io, events);
      else
        for (const event of events) {
          const deliveries = event.deliveries.map((d) => `${d.attempt}:${d.statusCode ?? d.error}`).join(" ");
          io.out(
            `${event.createdAt} ${event.type} ${event.id}${deliveries ? `  deliveries ${deliveries}` : "  not delivered (no endpoint)"}`,
          );
        }
      return `${events.length} of ${data.events.length} event(s)`;
    },
  });
}

/** One request log entry as a line: time, status, method, path, operation, duration, fault. */
export function describeRequest(entry: SandboxRequest): string {
  const fault = entry.fault
    ? ` [fault ${[entry.fault.status, entry.fault.drop && "dropped", entry.fault.malformed && "malformed", entry.fault.delayMs && `+${entry.fault.delayMs} ms`].filter(Boolean).join(" ")}]`
    : "";
  const contract = entry.contract && !entry.contract.valid ? " [answer off contract]" : "";
  const path = entry.query ? `${entry.path}?${entry.query}` : entry.path;
  return `${entry.at} ${entry.status ?? "---"} ${entry.method} ${path} ${entry.operationId ?? "(no operation)"} ${entry.durationMs} ms${fault}${contract}`;
}

/** Reads server-sent events from a response body until it ends (or the fetch's signal aborts it). */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (data: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      if (data) onEvent(data);
    }
  }
}

function logsCommand(name: string) {
  return defineCommand({
    name,
    summary: "prints the calls the sandbox answered (the request log); --follow keeps printing new ones",
    usage: `Usage: ${name} [--follow] [--operation-id <id>] [--status <code>] [--limit <n>] [--all-accounts]
       [--url <url>] [--api-key <key>] [--json]

One line a call, oldest first: time, status, method, path, operation, duration, the fault that struck it.

Options:
  --follow             keep printing calls as they are answered, until Ctrl-C
  --operation-id <id>  only calls of this operation
  --status <code>      only calls answered with this status
  --limit <n>          the newest n to start with (default 20, at most 1000)
  --all-accounts       every account's calls (sends no API key)
${CONNECTION_USAGE}
  --json               print each entry as one line of JSON instead`,
    options: {
      ...CONNECTION,
      follow: { type: "boolean" },
      "operation-id": { type: "string" },
      status: { type: "string" },
      limit: { type: "string" },
      "all-accounts": { type: "boolean" },
      json: { type: "boolean" },
    },
    async run({ values, io, signal }) {
      const limit = parseInteger(values.limit, "--limit", 1, 1000) ?? 20;
      const status = parseInteger(values.status, "--status", 100, 599);
      const connection = connect(values, values["all-accounts"]);
      const query = {
        limit,
        ...(values["operation-id"] !== undefined ? { operationId: values["operation-id"] } : {}),
        ...(status !== undefined ? { status } : {}),
      };
      const print = (entry: SandboxRequest) => io.out(values.json ? JSON.stringify(entry) : describeRequest(entry));
      const { data } = await call(connection, "logs", () =>
        connection.control.GET("/_sandbox/requests", { params: { query } }),
      );
      const recent = [...data.requests].reverse();
      for (const entry of recent) print(entry);
      if (!values.follow) return `${recent.length} of ${data.count} call(s)`;

      const stream = new URL(`${connection.url}/_sandbox/requests/stream`);
      if (query.operationId !== undefined) stream.searchParams.set("operationId", query.operationId);
      if (status !== undefined) stream.searchParams.set("status", String(status));
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (connection.apiKey !== undefined) headers["x-api-key"] = connection.apiKey;
      const last = recent.at(-1);
      if (last) headers["last-event-id"] = String(last.id);
      io.err(`following ${stream.origin}'s request log (Ctrl-C stops)`);
      let followed = 0;
      try {
        const response = await call(connection, "logs --follow", () => fetch(stream, { headers, signal }));
        if (!response.ok || !response.body)
          throw new JobFailure(`logs --follow: the sandbox answered ${response.status} to the request stream`);
        await readEvents(response.body, (text) => {
          followed++;
          print(JSON.parse(text) as SandboxRequest);
        });
      } catch (error) {
        if (!signal.aborted) throw error;
      }
      return `followed ${followed} call(s)`;
    },
  });
}

function faultCommands(name: string): CommandGroup {
  const listing = `Options:\n  --all-accounts       the whole sandbox's faults (sends no API key)\n${CONNECTION_USAGE}`;
  return {
    name,
    summary: "make partner API calls fail on purpose: add, list, remove and clear faults",
    commands: {
      add: defineCommand({
        name: `${name} add`,
        summary: "registers a fault for the account (or, with --all-accounts, for every account)",
        usage: `Usage: ${name} add (--operation-id <id> | [--method <m>] --path <template>)
       (--status <code> [--retry-after <s>] [--body <json>] | --drop | --malformed) [--delay-ms <ms>]
       [--times <n>] [--probability <p>] [--all-accounts] [--url <url>] [--api-key <key>]

e.g. ${name} add --operation-id listCardBins --status 503 --times 1

Options:
  --operation-id <id>  the partner API operation to fail (e.g. createCard)
  --method, --path     or a method and path template (/v1/cards/{cardId}/unfreeze)
  --status <code>      answer with this status instead (the operation does not run)
  --retry-after <s>    with --status, send Retry-After: <s>
  --body <json>        with --status, this JSON body instead of a problem naming the fault
  --delay-ms <ms>      answer this much later (with the others, or alone)
  --drop               close the connection without an answer
  --malformed          let the operation run and cut its answer's body short
  --times <n>          fail the next n matching calls only
  --probability <p>    fail each matching call with chance p (0 < p ≤ 1; seeded)
${listing}`,
        options: {
          ...CONNECTION,
          "operation-id": { type: "string" },
          method: { type: "string" },
          path: { type: "string" },
          status: { type: "string" },
          "retry-after": { type: "string" },
          body: { type: "string" },
          "delay-ms": { type: "string" },
          drop: { type: "boolean" },
          malformed: { type: "boolean" },
          times: { type: "string" },
          probability: { type: "string" },
          "all-accounts": { type: "boolean" },
        },
        async run({ values, io }) {
          let body: unknown;
          if (values.body !== undefined) {
            try {
              body = JSON.parse(values.body);
            } catch (error) {
              throw new UsageError(`--body must be JSON: ${(error as Error).message}`);
            }
          }
          const probability = values.probability === undefined ? undefined : Number(values.probability);
          if (probability !== undefined && !(probability > 0 && probability <= 1))
            throw new UsageError(
              `--probability must be above 0 and at most 1, got ${describeValue(values.probability)}`,
            );
          const fault: Schemas["CreateFaultRequest"] = {
            ...(values["operation-id"] !== undefined ? { operationId: values["operation-id"] } : {}),
            ...(values.method !== undefined ? { method: values.method.toUpperCase() as "GET" } : {}),
            ...(values.path !== undefined ? { path: values.path } : {}),
            ...optionalInteger(values.status, "--status", "status", 200, 599),
            ...optionalInteger(values["retry-after"], "--retry-after", "retryAfter", 0, 86_400),
            ...(body !== undefined ? { body } : {}),
            ...optionalInteger(values["delay-ms"], "--delay-ms", "delayMs", 0, 60_000),
            ...(values.drop ? { drop: true as const } : {}),
            ...(values.malformed ? { malformed: true as const } : {}),
            ...optionalInteger(values.times, "--times", "times", 1, 1_000_000),
            ...(probability !== undefined ? { probability } : {}),
          } as Schemas["CreateFaultRequest"];
          const connection = connect(values, values["all-accounts"]);
          const { data } = await call(connection, "faults add", () =>
            connection.control.POST("/_sandbox/faults", { body: fault }),
          );
          io.out(describeFault(data));
          return `fault ${data.id} added`;
        },
      }),
      list: defineCommand({
        name: `${name} list`,
        summary: "lists the faults the account sees (its own and the sandbox-wide ones)",
        usage: `Usage: ${name} list [--all-accounts] [--url <url>] [--api-key <key>]\n\n${listing}`,
        options: { ...CONNECTION, "all-accounts": { type: "boolean" } },
        async run({ values, io }) {
          const connection = connect(values, values["all-accounts"]);
          const { data } = await call(connection, "faults list", () => connection.control.GET("/_sandbox/faults"));
          for (const fault of data.faults) io.out(describeFault(fault));
          return `${data.faults.length} fault(s)`;
        },
      }),
      remove: defineCommand({
        name: `${name} remove`,
        summary: "removes one fault by id",
        usage: `Usage: ${name} remove <faultId> [--all-accounts] [--url <url>] [--api-key <key>]\n\n${listing}`,
        options: { ...CONNECTION, "all-accounts": { type: "boolean" } },
        positionals: { min: 1, max: 1 },
        async run({ values, positionals }) {
          const [faultId] = positionals as [string];
          const connection = connect(values, values["all-accounts"]);
          await call(connection, `faults remove ${faultId}`, () =>
            connection.control.DELETE("/_sandbox/faults/{faultId}", { params: { path: { faultId } } }),
          );
          return `fault ${faultId} removed`;
        },
      }),
      clear: defineCommand({
        name: `${name} clear`,
        summary: "removes the account's faults (with --all-accounts, every fault)",
        usage: `Usage: ${name} clear [--all-accounts] [--url <url>] [--api-key <key>]\n\n${listing}`,
        options: { ...CONNECTION, "all-accounts": { type: "boolean" } },
        async run({ values }) {
          const connection = connect(values, values["all-accounts"]);
          await call(connection, "faults clear", () => connection.control.DELETE("/_sandbox/faults"));
          return values["all-accounts"] ? "every fault removed" : "the account's faults removed";
        },
      }),
    },
  };
}

function optionalInteger(value: string | undefined, option: string, field: string, min: number, max: number) {
  const number = parseInteger(value, option, min, max);
  return number === undefined ? {} : { [field]: number };
}

function describeFault(fault: Schemas["Fault"]): string {
  const target = fault.operationId ?? `${fault.method ?? "any method"} ${fault.path}`;
  const effect = [
    fault.status !== undefined &&
      `status ${fault.status}${fault.retryAfter !== undefined ? ` (Retry-After ${fault.retryAfter})` : ""}`,
    fault.drop && "drop the connection",
    fault.malformed && "malformed body",
    fault.delayMs !== undefined && `${fault.delayMs} ms late`,
  ]
    .filter(Boolean)
    .join(", ");
  const reach = [
    fault.remaining !== undefined && `${fault.remaining} call(s) left`,
    fault.probability !== undefined && `chance ${fault.probability}`,
  ]
    .filter(Boolean)
    .join(", ");
  return `fault ${fault.id} (${fault.scope}): ${target} → ${effect}${reach ? `; ${reach}` : ""}; ${fault.hits} hit(s)`;
}

function scenarioCommand(name: string) {
  return defineCommand({
    name,
    summary: "runs a shipped workflow by name, or an Arazzo file's workflows, in the sandbox; lists them without one",
    usage: `Usage: ${name} [<name | file[#workflowId]>] [--url <url>] [--api-key <key>] [--json]

A shipped workflow (the API description's workflows; ${name} lists them), or an Arazzo 1.0 file: every
workflow of it in order, or the one after #. Its steps run in the sandbox as --api-key (the apiKey input).

Options:
${CONNECTION_USAGE}
${JSON_USAGE}`,
    options: { ...CONNECTION, json: { type: "boolean" } },
    positionals: { max: 1 },
    async run({ values, positionals, io }) {
      const connection = connect(values);
      const [which] = positionals;
      if (which === undefined) {
        const { data } = await call(connection, "scenario", () => connection.control.GET("/_sandbox/scenarios"));
        for (const scenario of data.scenarios)
          io.out(`${scenario.name}  ${scenario.summary ?? ""} (${scenario.steps.length} steps)`);
        return `${data.scenarios.length} shipped scenario(s)`;
      }
      const shipped = shippedWorkflows(sandboxRouter());
      const hash = which.lastIndexOf("#");
      const file = hash > 0 ? which.slice(0, hash) : which;
      const isFile =
        !shipped.has(which) &&
        (await stat(file).then(
          (found) => found.isFile(),
          () => false,
        ));
      if (!shipped.has(which) && !isFile)
        throw new UsageError(
          `${describeValue(which)} is neither a shipped scenario (${[...shipped.keys()].join(", ")}) nor a file`,
        );
      const body = shipped.has(which)
        ? { name: which }
        : {
            arazzo: await readArazzoFile(file, sandboxRouter()).catch((error: Error) => {
              throw error instanceof WorkflowError ? new UsageError(error.message) : error;
            }),
            ...(hash > 0 ? { workflowId: which.slice(hash + 1) } : {}),
          };
      const { data } = await call(connection, `scenario ${which}`, () =>
        connection.control.POST("/_sandbox/scenarios", { body }),
      );
      if (values.json) printJson(io, data);
      else {
        for (const step of data.steps)
          io.out(`${step.status} ${step.operationId} ${step.method} ${step.path}  (${step.workflowId} ${step.stepId})`);
        for (const workflow of data.workflows)
          io.out(
            `${workflow.workflowId} outputs: ${
              Object.entries(workflow.outputs)
                .map(([output, value]) => `${output}=${typeof value === "string" ? value : JSON.stringify(value)}`)
                .join(" ") || "none"
            }`,
          );
      }
      return `scenario ${data.scenario}: ${data.steps.length} call(s)`;
    },
  });
}

function resetCommand(name: string) {
  return defineCommand({
    name,
    summary: "back to the seeded state: accounts, events, faults and the request log (the clock stays)",
    usage: `Usage: ${name} [--url <url>]\n\nOptions:\n${CONNECTION_USAGE}`,
    options: CONNECTION,
    async run({ values }) {
      const connection = connect(values, true);
      await call(connection, "reset", () => connection.control.POST("/_sandbox/reset"));
      return "sandbox reset";
    },
  });
}

/** The control commands of `partner-api sandbox`, by name; `name` is how the group is invoked. */
export function sandboxControlCommands(name: string) {
  return {
    clock: clockCommands(`${name} clock`),
    kyc: kycCommand(`${name} kyc`),
    terms: termsCommand(`${name} terms`),
    route: routeCommands(`${name} route`),
    deposit: depositCommand(`${name} deposit`),
    trigger: triggerCommand(`${name} trigger`),
    events: eventsCommand(`${name} events`),
    logs: logsCommand(`${name} logs`),
    faults: faultCommands(`${name} faults`),
    scenario: scenarioCommand(`${name} scenario`),
    reset: resetCommand(`${name} reset`),
  };
}
