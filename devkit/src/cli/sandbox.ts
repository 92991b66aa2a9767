/**
 * `partner-api sandbox` (and `npm run sandbox` in this repository): `start` (also run when no command is
 * named) serves the stateful sandbox on 127.0.0.1:4020 unless --host/--port (or SANDBOX_HOST/SANDBOX_PORT)
 * say otherwise, until Ctrl-C, and prints its URL, the control API's URL and what it holds; the other
 * commands drive a running sandbox (sandbox-control/, one file a command).
 */

import { constants } from "node:fs";
import { access } from "node:fs/promises";
import path from "node:path";
import { DataFileError, readDataFile } from "../common/data-file.ts";
import { formatDuration } from "../common/duration.ts";
import { checkedAllowedHosts } from "../sandbox/boundary.ts";
import { CLOCK_RANGE_TEXT, inClockRange } from "../sandbox/clock.ts";
import { startSandboxWith } from "../sandbox/compose.ts";
import {
  DEFAULT_SANDBOX_HOST,
  DEFAULT_SANDBOX_PORT,
  DEFAULT_SCENARIO_API_KEY,
  type FaultInput,
  type Sandbox,
  type SandboxOptions,
  SandboxStateError,
  WorkflowError,
} from "../sandbox/index.ts";
import { receiverUrlRefusal } from "../sandbox/receivers.ts";
import { type LoadedState, StateFileInUseError } from "../sandbox/store/state-file.ts";
import { untilStopped } from "./lifecycle.ts";
import {
  type CommandGroup,
  defineCommand,
  describeValue,
  JobFailure,
  optionOrEnv,
  parseHost,
  parseInteger,
  parsePositiveNumber,
  UsageError,
} from "./runner.ts";
import { sandboxControlCommands } from "./sandbox-control/index.ts";

/** The largest --speed: a day of sandbox time in under a second. */
const MAX_SPEED = 1_000_000;

export interface SandboxCommandOptions {
  /** How the user invokes it: `partner-api sandbox` or `npm run sandbox --`. */
  name: string;
}

/** `partner-api sandbox`: `start` when no command is named, and the commands that drive a running sandbox. */
export function sandboxCommand({ name }: SandboxCommandOptions): CommandGroup {
  return {
    name,
    summary: "the stateful sandbox: start it, then drive it (clock, KYC, routes, deposits, triggers, logs, faults)",
    default: "start",
    commands: { start: sandboxStartCommand(`${name} start`, name), ...sandboxControlCommands(name) },
  };
}

/** `start`'s help text; `group` is how the sandbox command is invoked. */
function sandboxStartUsage(group: string): string {
  return `Usage: ${group} [start] [--port <port>] [--host <host>] [--allowed-host <name>]... [--seed <n>]
       [--state <file>] [--speed <n>]
       [--start-time <iso>] [--frozen] [--webhook-url <url> --webhook-secret <secret>] [--allow-private-receivers]
       [--faults <file>] [--scenario <name|file>]... [--scenario-api-key <key>] [--print-address]

Every X-API-Key value is its own sandbox account, seeded on first use. The control API under /_sandbox
resets it, drives its clock, registers webhook receivers, makes calls fail on purpose (faults), logs every
call and makes things happen (deposits, KYC results, scenarios); ${group} <command> does the same from here.
Open the sandbox's address in a browser for its dashboard: accounts, events, the request log, the clock
and faults, and a console that sends real requests.

Options:
  --port <port>              port to listen on (default ${DEFAULT_SANDBOX_PORT}; env SANDBOX_PORT; 0 picks a free one)
  --host <host>              interface to listen on (default ${DEFAULT_SANDBOX_HOST}; env SANDBOX_HOST)
  --allowed-host <name>      answer requests for this host name too (repeatable; .example.test for every name
                             under it); IP addresses, localhost and --host are always answered, others refused
  --seed <n>                 the same seed gives the same ids and data, run after run (default 1)
  --state <file>             keep the state in this JSON file and carry on from it at the next start
  --speed <n>                the clock and the webhook retry waits run n times faster (default 1)
  --webhook-url <url>        register this receiver for every account at start (needs --webhook-secret)
  --webhook-secret <secret>  the receiver's signing secret
  --allow-private-receivers  let receivers be in private ranges (10/8, 172.16/12, 192.168/16, fc00::/7); the
                             sandbox's own address, link-local and metadata addresses are never allowed
  --start-time <iso>         the clock's first reading (default now; a state file carries on from its own)
  --frozen                   start with the clock frozen (it moves only when advanced or resumed)
  --faults <file>            sandbox-wide faults from a YAML or JSON file: a list of faults (the body of
                             POST /_sandbox/faults), kept after a reset
  --scenario <name|file>     run a shipped workflow, or an Arazzo file's workflows (file#workflowId for one), at
                             start (repeatable, in order)
  --scenario-api-key <key>   the account start scenarios run as, their apiKey input (default "${DEFAULT_SCENARIO_API_KEY}")
  --print-address            print the sandbox's address alone as the first line on stdout (the summary
                             goes to stderr), for a script to read
  --no-exit-with-parent      keep serving after the process that started it (npx, npm run) is gone
  -h, --help                 this text

Ctrl-C, SIGTERM or SIGHUP stops it, and so does the end of the process that started it (npx, npm run, or
its parent): "kill $!" after "npx partner-api sandbox … &" leaves nothing answering.
Exit codes: 0 stopped, 1 it could not start, 2 bad option.`;
}

function sandboxStartCommand(name: string, group: string) {
  return defineCommand({
    name,
    summary: "serves the whole partner API with state, a clock you drive and signed webhooks (the sandbox)",
    usage: sandboxStartUsage(group),
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "allowed-host": { type: "string", multiple: true },
      seed: { type: "string" },
      state: { type: "string" },
      speed: { type: "string" },
      "webhook-url": { type: "string" },
      "webhook-secret": { type: "string" },
      "allow-private-receivers": { type: "boolean" },
      "start-time": { type: "string" },
      frozen: { type: "boolean" },
      faults: { type: "string" },
      scenario: { type: "string", multiple: true },
      "scenario-api-key": { type: "string" },
      "print-address": { type: "boolean" },
      "no-exit-with-parent": { type: "boolean" },
    },
    quiet: true,
    async run({ values, io, signal }) {
      const started = performance.now();
      const options: SandboxOptions = {
        ...sandboxOptions(values),
        ...(values.faults !== undefined ? { faults: await readFaultsFile(values.faults) } : {}),
      };
      let held = "nothing yet";
      let seed = options.seed ?? 1;
      if (options.state !== undefined) {
        await checkStateFolder(options.state);
      }
      let sandbox: Sandbox;
      try {
        // What the state file holds is told as the sandbox reads it (once: a large state takes a while to read).
        sandbox = await startSandboxWith(options, {
          onLoaded: (saved) => {
            if (options.state === undefined) return;
            if (saved && options.seed === undefined) seed = saved.seed;
            held = saved ? describeHoldings(saved, options.state) : `nothing yet (new state file ${options.state})`;
          },
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EADDRINUSE" || code === "EADDRNOTAVAIL" || code === "EACCES") {
          throw new JobFailure(
            `cannot listen on ${options.host}:${options.port}: ${code}` +
              (code === "EADDRINUSE" ? `\nset --port (or SANDBOX_PORT) to a free port, e.g. ${name} --port 0` : ""),
          );
        }
        if (error instanceof StateFileInUseError) throw new JobFailure(error.message);
        if (error instanceof SandboxStateError || error instanceof TypeError || error instanceof WorkflowError)
          throw new UsageError(error.message);
        throw error;
      }
      // With --print-address the address is the first line on stdout, for a script; the summary is for a person.
      const say = values["print-address"] ? io.err : io.out;
      if (values["print-address"]) io.out(sandbox.url);
      say(
        `Sandbox serving the partner API on ${sandbox.url} (started in ${formatDuration(performance.now() - started)})`,
      );
      say(`  dashboard:   ${sandbox.url}/ (open it in a browser: accounts, events, requests, clock, console)`);
      say(
        `  control API: ${sandbox.url}/_sandbox (reset, clock, webhook receivers, events, faults, request log, scenarios)`,
      );
      say(`  holds:       ${held}; every X-API-Key value is its own account, seeded on first use`);
      if (options.scenarios?.length)
        say(
          `  scenarios:   ${options.scenarios.join(", ")} ran as account "${options.scenarioApiKey ?? DEFAULT_SCENARIO_API_KEY}"`,
        );
      if (options.faults?.length) say(`  faults:      ${options.faults.length} sandbox-wide from ${values.faults}`);
      const clock = options.frozen
        ? `clock frozen at ${(await sandbox.control.GET("/_sandbox/clock")).data?.now}`
        : `clock at ${options.speed === 1 ? "real time" : `${options.speed}x`}`;
      say(
        `  seed ${seed}, ${options.state === undefined ? "state in memory" : `state in ${options.state}`}, ${clock}` +
          (options.webhooks ? `, webhooks to ${options.webhooks.url}` : ""),
      );
      say(`  drive it:    ${group} --help (clock, kyc, route open, deposit, trigger, logs, faults, scenario)`);
      say(`Try: curl -H 'X-API-Key: sandbox' ${sandbox.url}/v1/companies   (Ctrl-C stops it)`);
      await untilStopped(signal, io, !values["no-exit-with-parent"]);
      const stopStarted = performance.now();
      await sandbox.stop();
      io.err(`✓ sandbox stopped (${formatDuration(performance.now() - stopStarted)})`);
      return undefined;
    },
  });
}

type Values = Partial<
  Record<
    "port" | "host" | "seed" | "state" | "speed" | "webhook-url" | "webhook-secret" | "start-time" | "scenario-api-key",
    string
  >
> & { frozen?: boolean; scenario?: string[]; "allowed-host"?: string[]; "allow-private-receivers"?: boolean };

/** The options, each checked and named when malformed. */
function sandboxOptions(values: Values) {
  const port = parsePortOrZero(values.port);
  const hostOption = optionOrEnv(values.host, "--host", "SANDBOX_HOST");
  const host = parseHost(hostOption.value, hostOption.name) ?? DEFAULT_SANDBOX_HOST;
  // Left out when not given, so a state file carries on with the seed it was written with.
  const seed = parseInteger(values.seed, "--seed", 0, Number.MAX_SAFE_INTEGER);
  const speed = parsePositiveNumber(values.speed, "--speed", MAX_SPEED) ?? 1;
  if (values.state === "") throw new UsageError("--state must be a file path, got an empty value");
  const url = values["webhook-url"];
  const secret = values["webhook-secret"];
  if ((url === undefined) !== (secret === undefined)) {
    throw new UsageError(
      url === undefined
        ? "--webhook-secret needs --webhook-url <url> (the receiver to register)"
        : "--webhook-url needs --webhook-secret <secret> (the receiver's signing secret)",
    );
  }
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      throw new UsageError(
        `--webhook-url must be an http: or https: URL (e.g. http://127.0.0.1:4242/webhooks), got "${url}"`,
      );
    }
    if (secret === "") throw new UsageError("--webhook-secret must not be empty");
    const why = receiverUrlRefusal(url, {
      ownPort: () => (port === 0 ? undefined : port),
      allowPrivate: values["allow-private-receivers"] === true,
    });
    if (why !== undefined) throw new UsageError(`--webhook-url ${why}, got ${describeValue(url)}`);
  }
  const startTime = values["start-time"];
  if (startTime !== undefined && (!/^\d{4}-\d{2}-\d{2}T/.test(startTime) || Number.isNaN(Date.parse(startTime))))
    throw new UsageError(
      `--start-time must be an ISO 8601 time (e.g. 2026-01-01T00:00:00Z), got ${describeValue(startTime)}`,
    );
  if (startTime !== undefined && !inClockRange(Date.parse(startTime)))
    throw new UsageError(
      `--start-time must be ${CLOCK_RANGE_TEXT} (the sandbox clock's range), got ${describeValue(startTime)}`,
    );
  if (values["scenario-api-key"] === "") throw new UsageError("--scenario-api-key must not be empty");
  let allowedHosts: string[] | undefined;
  try {
    allowedHosts = values["allowed-host"] && checkedAllowedHosts(values["allowed-host"], "--allowed-host");
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^--allowed-host\[\d+\]/, "--allowed-host"));
  }
  const options = {
    port,
    host,
    ...(allowedHosts ? { allowedHosts } : {}),
    speed,
    ...(startTime !== undefined ? { startTime } : {}),
    ...(values.frozen ? { frozen: true } : {}),
    ...(values["allow-private-receivers"] ? { allowPrivateReceivers: true } : {}),
    ...(values.scenario !== undefined ? { scenarios: values.scenario } : {}),
    ...(values["scenario-api-key"] !== undefined ? { scenarioApiKey: values["scenario-api-key"] } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(values.state !== undefined ? { state: values.state } : {}),
    ...(url !== undefined && secret !== undefined ? { webhooks: { url, secret } } : {}),
  } satisfies SandboxOptions;
  return options;
}

/** The faults of a --faults file: a YAML or JSON list of faults, or { faults: [...] }; checked by startSandbox. */
async function readFaultsFile(file: string): Promise<FaultInput[]> {
  const value = await readDataFile(file, `--faults ${file}`).catch((error: Error) => {
    throw error instanceof DataFileError ? new UsageError(error.message) : error;
  });
  const faults = Array.isArray(value) ? value : (value as { faults?: unknown } | null)?.faults;
  if (!Array.isArray(faults))
    throw new UsageError(
      `--faults ${file} must hold a list of faults (or { faults: [...] }), e.g. - { operationId: listCardBins, status: 503, times: 1 }`,
    );
  return faults as FaultInput[];
}

/** --port / SANDBOX_PORT; 0 picks a free port. */
function parsePortOrZero(value: string | undefined): number {
  const option = optionOrEnv(value, "--port", "SANDBOX_PORT");
  return parseInteger(option.value, option.name, 0, 65_535) ?? DEFAULT_SANDBOX_PORT;
}

/** The state file is written on every change: its folder must exist and be writable before the sandbox starts. */
async function checkStateFolder(file: string): Promise<void> {
  const folder = path.dirname(path.resolve(file));
  try {
    await access(folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--state ${file}: its folder ${code === "ENOENT" ? "does not exist" : `is not writable (${code})`}; create it or choose another file`,
    );
  }
}

function describeHoldings(state: LoadedState, file: string): string {
  const { accounts, companies, events } = state.counts;
  const migrated = state.migratedFrom
    ? `; migrated from format version ${state.migratedFrom.format}, the old files kept as ${state.migratedFrom.keptAs.join(", ")}`
    : "";
  return `${accounts} account(s), ${companies} compan${companies === 1 ? "y" : "ies"}, ${events} event(s) from ${file} (seed ${state.seed}, clock ${state.clock}${migrated})`;
}
