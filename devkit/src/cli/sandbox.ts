/**
 * `partner-api sandbox` (and `npm run sandbox` in this repository): the stateful sandbox on 127.0.0.1:4020
 * unless --host/--port (or SANDBOX_HOST/SANDBOX_PORT) say otherwise, until Ctrl-C. It prints its URL, the
 * control API's URL and what it holds.
 */
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import path from "node:path";
import {
  defineCommand,
  JobFailure,
  optionOrEnv,
  parseHost,
  parseInteger,
  parsePositiveNumber,
  UsageError,
  untilAborted,
} from "../../../scripts/lib/cli.ts";
import { formatDuration } from "../../../scripts/lib/log.ts";
import {
  DEFAULT_SANDBOX_HOST,
  DEFAULT_SANDBOX_PORT,
  type Sandbox,
  type SandboxOptions,
  SandboxStateError,
  startSandbox,
} from "../sandbox/index.ts";
import { readStateFile } from "../sandbox/store.ts";

/** The largest --speed: a day of sandbox time in under a second. */
const MAX_SPEED = 1_000_000;

export interface SandboxCommandOptions {
  /** How the user invokes it: `partner-api sandbox` or `npm run sandbox --`. */
  name: string;
}

export function sandboxCommand({ name }: SandboxCommandOptions) {
  return defineCommand({
    name,
    summary: "serves the whole partner API with state, a clock you drive and signed webhooks (the sandbox)",
    usage: `Usage: ${name} [--port <port>] [--host <host>] [--seed <n>] [--state <file>] [--speed <n>]
       [--webhook-url <url> --webhook-secret <secret>]

Every X-API-Key value is its own sandbox account, seeded on first use. The control API under /_sandbox
resets it, advances its clock, registers webhook receivers and makes things happen (deposits, KYC results).
Open the sandbox's address in a browser for its dashboard: accounts, events, the request log, the clock
and faults, and a console that sends real requests.

Options:
  --port <port>              port to listen on (default ${DEFAULT_SANDBOX_PORT}; env SANDBOX_PORT; 0 picks a free one)
  --host <host>              interface to listen on (default ${DEFAULT_SANDBOX_HOST}; env SANDBOX_HOST)
  --seed <n>                 the same seed gives the same ids and data, run after run (default 1)
  --state <file>             keep the state in this JSON file and carry on from it at the next start
  --speed <n>                the clock and the webhook retry waits run n times faster (default 1)
  --webhook-url <url>        register this receiver for every account at start (needs --webhook-secret)
  --webhook-secret <secret>  the receiver's signing secret
  -h, --help                 this text

Ctrl-C stops it. Exit codes: 0 stopped, 1 it could not start, 2 bad option.`,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      seed: { type: "string" },
      state: { type: "string" },
      speed: { type: "string" },
      "webhook-url": { type: "string" },
      "webhook-secret": { type: "string" },
    },
    quiet: true,
    async run({ values, io, signal }) {
      const started = performance.now();
      const options = sandboxOptions(values);
      let held = "nothing yet";
      let seed = options.seed ?? 1;
      if (options.state !== undefined) {
        await checkStateFolder(options.state);
        const saved = await readStateFile(options.state, options.state).catch((error: Error) => {
          throw error instanceof SandboxStateError ? new UsageError(error.message) : error;
        });
        if (saved && options.seed === undefined) seed = saved.seed;
        held = saved ? describeHoldings(saved, options.state) : `nothing yet (new state file ${options.state})`;
      }
      let sandbox: Sandbox;
      try {
        sandbox = await startSandbox(options);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EADDRINUSE" || code === "EADDRNOTAVAIL" || code === "EACCES") {
          throw new JobFailure(
            `cannot listen on ${options.host}:${options.port}: ${code}` +
              (code === "EADDRINUSE" ? `\nset --port (or SANDBOX_PORT) to a free port, e.g. ${name} --port 0` : ""),
          );
        }
        if (error instanceof SandboxStateError || error instanceof TypeError) throw new UsageError(error.message);
        throw error;
      }
      io.out(
        `Sandbox serving the partner API on ${sandbox.url} (started in ${formatDuration(performance.now() - started)})`,
      );
      io.out(`  dashboard:   ${sandbox.url}/ (open it in a browser: accounts, events, requests, clock, console)`);
      io.out(`  control API: ${sandbox.url}/_sandbox (reset, clock, webhook receivers, events)`);
      io.out(`  holds:       ${held}; every X-API-Key value is its own account, seeded on first use`);
      io.out(
        `  seed ${seed}, ${options.state === undefined ? "state in memory" : `state in ${options.state}`}, clock at ${options.speed === 1 ? "real time" : `${options.speed}x`}` +
          (options.webhooks ? `, webhooks to ${options.webhooks.url}` : ""),
      );
      io.out(`Try: curl -H 'X-API-Key: sandbox' ${sandbox.url}/v1/companies   (Ctrl-C stops it)`);
      await untilAborted(signal);
      const stopStarted = performance.now();
      await sandbox.stop();
      io.err(`✓ sandbox stopped (${formatDuration(performance.now() - stopStarted)})`);
      return undefined;
    },
  });
}

type Values = Partial<Record<"port" | "host" | "seed" | "state" | "speed" | "webhook-url" | "webhook-secret", string>>;

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
  }
  const options = {
    port,
    host,
    speed,
    ...(seed !== undefined ? { seed } : {}),
    ...(values.state !== undefined ? { state: values.state } : {}),
    ...(url !== undefined && secret !== undefined ? { webhooks: { url, secret } } : {}),
  } satisfies SandboxOptions;
  return options;
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

function describeHoldings(state: Awaited<ReturnType<typeof readStateFile>> & object, file: string): string {
  const accounts = Object.values(state.accounts);
  const companies = accounts.reduce((sum, account) => sum + account.companies.length, 0);
  const events = accounts.reduce((sum, account) => sum + account.events.length, 0);
  return `${accounts.length} account(s), ${companies} compan${companies === 1 ? "y" : "ies"}, ${events} event(s) from ${file} (seed ${state.seed}, clock ${state.clock})`;
}
