/**
 * `partner-api proxy` (and `npm run proxy` in this repository): a validating proxy in front of an
 * implementation of the partner API. Each violation is printed as it happens and appended to --report (one
 * JSON object per line, the fields of verify's failures, secrets redacted, the file readable by its owner
 * only); the first Ctrl-C or SIGTERM cuts the exchanges still in flight, prints a summary and, with
 * --fail-on-violation, exits 1 when there was any, within STOP_LIMIT_MS. Given a command (`-- npm test`), it runs
 * it with PARTNER_API_BASE_URL pointing at the proxy and stops when the command ends: the one way to keep
 * --fail-on-violation's exit code in a script, since a background job ignores SIGINT there and `kill` reaches
 * npx, not the proxy (docs/design/verify-coverage.md). The work is devkit/src/conformance/proxy.ts and proxy/.
 */

import { spawn } from "node:child_process";
import { constants, readFileSync } from "node:fs";
import { access, type FileHandle, open } from "node:fs/promises";
import path from "node:path";
import { formatDuration, parseDuration } from "../common/duration.ts";
import { type ContractProxy, DEFAULT_UPSTREAM_TIMEOUT_MS, startProxy } from "../conformance/proxy.ts";
import type { Failure } from "../conformance/types.ts";
import { inert, inertJson } from "../inert.ts";
import { contractJsonPath } from "../paths.ts";
import { checkedAllowedHosts } from "../sandbox/boundary.ts";
import { untilStopped, watchParent } from "./lifecycle.ts";
import { type CliIO, defineCommand, describeValue, JobFailure, parseHost, parseInteger, UsageError } from "./runner.ts";

export const DEFAULT_PROXY_PORT = 4030;
/** The longest a stop may wait for the exchanges it cut to be judged and the report written: then it exits anyway. */
export const STOP_LIMIT_MS = 4_000;

/** How long a command asked to stop (SIGTERM) may take before it is killed (SIGKILL). */
export const COMMAND_STOP_MS = 10_000;
/** The variable the command reads the proxy's address from (the client's and the guide's). */
export const BASE_URL_VARIABLE = "PARTNER_API_BASE_URL";

/** How a command run behind the proxy ended. */
interface CommandEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A command line for a message: its words, quoted where they hold spaces, cut at 80 characters. */
function describeCommand(command: readonly string[]): string {
  const text = command.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))).join(" ");
  return inert(text.length > 80 ? `${text.slice(0, 79)}…` : text);
}

/**
 * Runs `command` (no shell: its words as given) with PARTNER_API_BASE_URL set to the proxy, its output on this
 * process's; resolves when it ends. When this process is stopped (Ctrl-C, SIGTERM, the end of its parent) the
 * command gets SIGTERM, and SIGKILL COMMAND_STOP_MS later. A command that cannot be started is bad input.
 */
function runCommandBehind(
  command: readonly string[],
  baseUrl: string,
  signal: AbortSignal,
  io: CliIO,
  exitWithParent: boolean,
): Promise<CommandEnd> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), {
      stdio: "inherit",
      env: { ...process.env, [BASE_URL_VARIABLE]: baseUrl },
    });
    let killer: NodeJS.Timeout | undefined;
    let unwatch: () => void = () => {};
    const stop = (why: string) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      io.err(`${why}: stopping ${describeCommand(command)} (SIGTERM)…`);
      child.kill("SIGTERM");
      killer = setTimeout(() => child.kill("SIGKILL"), COMMAND_STOP_MS);
    };
    const onAbort = () => stop("stopped");
    const done = () => {
      clearTimeout(killer);
      unwatch();
      signal.removeEventListener("abort", onAbort);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    if (exitWithParent) unwatch = watchParent(() => stop("the process that started this one is gone"));
    child.once("error", (error: NodeJS.ErrnoException) => {
      done();
      reject(
        new UsageError(
          `the command ${describeCommand(command)} could not be started (${error.code ?? error.message}): give a program on the PATH after --, e.g. -- npm test`,
        ),
      );
    });
    child.once("exit", (code, exitSignal) => {
      done();
      resolve({ code, signal: exitSignal });
    });
  });
}

/** Resolves when `work` does, or after `ms`, whichever is first (true when the work finished). */
function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([work.then(() => true), late]).finally(() => clearTimeout(timer));
}

export interface ProxyCommandOptions {
  /** How the user invokes it: `partner-api proxy` or `npm run proxy --`. */
  name: string;
}

function parseUpstream(value: string | undefined): string {
  if (value === undefined || value === "")
    throw new UsageError("--upstream is required: the implementation to forward to, e.g. http://127.0.0.1:4020");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--upstream must be an http: or https: URL, got ${describeValue(value)}`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash)
    throw new UsageError(
      `--upstream must be an http: or https: URL without query or fragment, got ${describeValue(value)}`,
    );
  return value;
}

/** One line per violation, as it happens; what the traffic put in it (a path, a message) made inert. */
export function violationLine(failure: Failure): string {
  return inert(
    `✗ [${failure.check}] ${failure.operationId} ${failure.method} ${failure.path} → ${failure.status ?? "no answer"}: ${failure.message}${failure.jsonPath ? ` (at ${failure.jsonPath || "the body"})` : ""}`,
  );
}

/** The command's help text. */
function proxyUsage(name: string): string {
  return `Usage: ${name} --upstream <url> [--port ${DEFAULT_PROXY_PORT}] [--host <host>] [--allowed-host <name>]... [--report <file.jsonl>]
       [--fail-on-violation] [--max-response-time <ms>] [--upstream-timeout <duration>] [-- <command> [args…]]

Point your integration tests at the proxy instead of the implementation. Both directions are validated
against the contract with verify's checks (${name.replace(/proxy$/, "verify")} --list-checks); what passes through is not changed.

With a command after --, the proxy runs it with ${BASE_URL_VARIABLE} set to the proxy's address (on a free
port unless --port is given), stops when it ends, and exits 1 when the command failed or, with
--fail-on-violation, when an answer broke the contract; 0 otherwise. In CI:
  ${name} --upstream https://staging.example --report violations.jsonl --fail-on-violation -- npm test

Options:
  --upstream <url>           the implementation to forward to (the staging sandbox, the local sandbox, the service)
  --port <port>              port to listen on (default ${DEFAULT_PROXY_PORT}; 0 picks a free one)
  --host <host>              interface to listen on (default 127.0.0.1)
  --allowed-host <name>      answer requests for this host name too (repeatable; .example.test for every name
                             under it); IP addresses, localhost and --host always are, as for the sandbox
  --report <file.jsonl>      append each violation there, one JSON object per line (secrets redacted;
                             the file is readable by you only)
  --fail-on-violation        exit 1 at Ctrl-C when there was any error-level violation
  --max-response-time <ms>   report any answer slower than this
  --upstream-timeout <d>     cut an exchange when the upstream sends nothing for this long (default ${formatDuration(DEFAULT_UPSTREAM_TIMEOUT_MS)})
  --no-exit-with-parent      keep running after the process that started it (npx, npm run) is gone
  -h, --help                 this text

Bodies stream through; each is validated when it is at most 1 MiB (a larger one passes unvalidated, with a
note). Ctrl-C (or SIGTERM, or the end of the process that started it) cuts what is still in flight and prints
the summary within ${STOP_LIMIT_MS / 1000 + 1} s. Exit codes: 0 stopped (or no violation), 1 violations with
--fail-on-violation, a failed command, or it could not listen, 2 bad option or a command that cannot start.`;
}

/** --allowed-host's names, checked as the sandbox checks them. */
function parseAllowedHosts(values: string[] | undefined): string[] {
  try {
    return checkedAllowedHosts(values, "--allowed-host");
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^--allowed-host\[\d+\]/, "--allowed-host"));
  }
}

function parseUpstreamTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_UPSTREAM_TIMEOUT_MS;
  const ms = parseDuration(value);
  if (ms === undefined || ms < 100 || ms > 3_600_000)
    throw new UsageError(
      `--upstream-timeout must be a duration from 100ms to 1h (30s, 2m, or plain seconds), got ${describeValue(value)}`,
    );
  return ms;
}

/** Opens --report for appending, readable by its owner only; undefined without --report. */
async function openReport(option: string | undefined): Promise<{ file: string; handle: FileHandle } | undefined> {
  if (option === undefined) return undefined;
  const file = path.resolve(option);
  if (option === "") throw new UsageError("--report must be a file path");
  try {
    await access(path.dirname(file), constants.W_OK);
  } catch {
    throw new UsageError(`--report ${option}: its folder does not exist or is not writable`);
  }
  // Readable by its owner only, as the sandbox's state: a violation quotes the request that made it.
  const handle = await open(file, "a", 0o600).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--report ${option}: cannot open it (${error.code ?? error.message})`);
  });
  await handle.chmod(0o600).catch(() => undefined);
  return { file, handle };
}

/** The closing line's counts: requests, violations and warnings by check, and whether every exchange was judged. */
function proxySummary(proxy: ContractProxy, stopped: boolean): string {
  const errors = proxy.errors();
  const warnings = [...proxy.counts.values()].reduce((sum, count) => sum + count, 0) - errors;
  const byCheck = proxy.counts;
  const { requests, unmatched, unvalidated, cut, refused } = proxy.stats;
  return `${requests} request(s) forwarded (${unmatched} not in the contract${unvalidated > 0 ? `, ${unvalidated} with a body passed on unvalidated` : ""}${cut > 0 ? `, ${cut} cut short or unanswered` : ""})${refused > 0 ? `, ${refused} refused (another Host, or another origin for the control API)` : ""}, ${errors} violation(s), ${warnings} warning(s)${byCheck.size > 0 ? `: ${[...byCheck].map(([id, count]) => `${id} ${count}`).join(", ")}` : ""}${stopped ? "" : ` (stopped before every exchange was judged, after ${formatDuration(STOP_LIMIT_MS)})`}`;
}

export function proxyCommand({ name }: ProxyCommandOptions) {
  return defineCommand({
    name,
    summary:
      "forwards requests to an implementation unchanged and reports every answer (and request) that breaks the contract",
    usage: proxyUsage(name),
    options: {
      upstream: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      "allowed-host": { type: "string", multiple: true },
      report: { type: "string" },
      "fail-on-violation": { type: "boolean" },
      "max-response-time": { type: "string" },
      "upstream-timeout": { type: "string" },
      "no-exit-with-parent": { type: "boolean" },
    },
    quiet: true,
    positionals: { max: Number.POSITIVE_INFINITY },
    async run({ values, positionals: command, io, signal }) {
      const started = performance.now();
      const upstream = parseUpstream(values.upstream);
      // With a command, a free port: the command is told where the proxy is.
      const port = parseInteger(values.port, "--port", 0, 65_535) ?? (command.length > 0 ? 0 : DEFAULT_PROXY_PORT);
      const host = parseHost(values.host, "--host") ?? "127.0.0.1";
      const allowedHosts = parseAllowedHosts(values["allowed-host"]);
      const maxResponseTimeMs = parseInteger(values["max-response-time"], "--max-response-time", 1, 600_000);
      const upstreamTimeoutMs = parseUpstreamTimeout(values["upstream-timeout"]);
      const opened = await openReport(values.report);
      const reportFile = opened?.file;
      const report = opened?.handle;
      let writes: Promise<void> = Promise.resolve();
      const proxy = await startProxy({
        upstream,
        host,
        allowedHosts,
        port,
        upstreamTimeoutMs,
        ...(maxResponseTimeMs !== undefined ? { maxResponseTimeMs } : {}),
        document: JSON.parse(readFileSync(contractJsonPath, "utf8")),
        onViolation: (failure) => {
          io.err(violationLine(failure));
          if (report !== undefined)
            writes = writes
              .then(() => report.appendFile(`${inertJson(JSON.stringify(failure))}\n`))
              .catch((error: Error) => {
                io.err(`could not append to ${values.report}: ${error.message}`);
              });
        },
        onNote: (text) => io.err(`ℹ ${text}`),
      }).catch(async (error: NodeJS.ErrnoException) => {
        await report?.close();
        if (error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL")
          throw new JobFailure(
            `cannot listen on ${host}:${port}: ${error.code}; set --port to a free port (0 picks one)`,
          );
        throw error;
      });
      const line = `Proxy on ${proxy.url} → ${upstream}, validating against the contract (started in ${formatDuration(performance.now() - started)})${reportFile ? `; violations appended to ${values.report}` : ""}.`;
      let ended: CommandEnd | undefined;
      if (command.length > 0) {
        // The command's own output is on stdout: the proxy's lines go to stderr.
        io.err(`${line} Running ${describeCommand(command)} with ${BASE_URL_VARIABLE}=${proxy.url}.`);
        ended = await runCommandBehind(command, proxy.url, signal, io, !values["no-exit-with-parent"]).catch(
          async (error: unknown) => {
            await within(
              STOP_LIMIT_MS,
              proxy.close().then(() => writes),
            );
            await within(500, report?.close() ?? Promise.resolve());
            throw error;
          },
        );
      } else {
        io.out(`${line} Ctrl-C stops it.`);
        await untilStopped(signal, io, !values["no-exit-with-parent"]);
      }
      // The exchanges in flight are cut and settled at once; their judgments and the report's last lines get a
      // bounded time, so one signal always ends the proxy with its summary and its exit code.
      const stopped = await within(
        STOP_LIMIT_MS,
        proxy.close().then(() => writes),
      );
      await within(500, report?.close() ?? Promise.resolve());
      const summary = proxySummary(proxy, stopped);
      const failed =
        ended !== undefined && ended.code !== 0
          ? `${describeCommand(command)} failed (${ended.code !== null ? `exit ${ended.code}` : `signal ${ended.signal}`})`
          : undefined;
      const violated = proxy.errors() > 0 && values["fail-on-violation"];
      if (failed !== undefined || violated)
        throw new JobFailure(
          failed !== undefined ? `${failed}; proxy: ${summary}` : `${summary} (--fail-on-violation)`,
        );
      io.err(`✓ proxy stopped: ${summary}${ended ? ` (${describeCommand(command)} passed)` : ""}`);
      return undefined;
    },
  });
}
