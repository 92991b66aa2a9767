/**
 * Starts and stops a Prism mock server (the pinned @stoplight/prism-cli) for the bundled contract.
 * Used by `partner-api mock` (and `npm run mock`), the contract tests' globalSetup and the benchmarks.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import path from "node:path";
import { contractJsonPath, displayPath } from "./paths.ts";

/** Prism's CLI, found the way Node finds the devkit's dependency (hoisted or nested, in a repo or an app). */
function prismCli(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve("@stoplight/prism-cli/package.json");
    return path.join(path.dirname(manifest), "dist", "index.js");
  } catch {
    return undefined;
  }
}

/** The version of the Prism the devkit runs ("unknown" when it is not installed), for reports that name it. */
export function prismVersion(): string {
  try {
    return (createRequire(import.meta.url)("@stoplight/prism-cli/package.json") as { version: string }).version;
  } catch {
    return "unknown";
  }
}

export const PRISM_LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type PrismLogLevel = (typeof PRISM_LOG_LEVELS)[number];

/**
 * Prism's CLI (5.14.2 to 5.16.0) dies (uncaught TypeError in its log formatter) when it logs, at level info, a request
 * whose JSON body nests a few thousand levels deep: its "Request received" line carries the body. At "warn"
 * that line is never written, so warn is the default; violations and errors are still logged.
 */
export const DEFAULT_PRISM_LOG_LEVEL: PrismLogLevel = "warn";

export interface PrismOptions {
  /** Interface to listen on; loopback unless told otherwise. */
  host?: string;
  /** Port to listen on; a free port chosen by the system when omitted. */
  port?: number;
  /** The contract to serve (relative to the working directory); the bundled contract when omitted. */
  document?: string;
  /** Receives each line Prism prints (ANSI colours removed). */
  onLog?: (line: string) => void;
  /** Prism's --verboseLevel; "warn" unless told (see DEFAULT_PRISM_LOG_LEVEL for why not "info"). */
  logLevel?: PrismLogLevel;
  /** How long to wait for Prism to answer before giving up. */
  startTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
}

export interface PrismServer {
  /** Base URL, e.g. http://127.0.0.1:4010 (no trailing slash). */
  url: string;
  port: number;
  pid: number;
  /** Stops Prism: SIGTERM, then SIGKILL after the grace period. Safe to call more than once. */
  stop(): Promise<void>;
}

const DEFAULT_HOST = "127.0.0.1";
const DEFAULT_START_TIMEOUT_MS = 30_000;
const DEFAULT_STOP_GRACE_MS = 3_000;
const KEPT_LOG_LINES = 30;

/**
 * Loaded into the Prism process before its CLI: Prism exits when our end of its stdin closes, so it
 * cannot outlive this process even when this process is killed with SIGKILL and runs no handler.
 */
const ORPHAN_GUARD =
  "data:text/javascript," +
  encodeURIComponent(
    "process.stdin.on('end',()=>process.exit(0));process.stdin.on('error',()=>process.exit(0));process.stdin.resume();",
  );

/** A port that was free a moment ago: bind port 0 on the host, read the port, release it. */
export function findFreePort(host: string = DEFAULT_HOST): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error(`could not get a free port on ${host}`))));
    });
  });
}

/** Whether a server could listen on host:port right now. */
function canBind(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

// Every live Prism process, so that an exiting or interrupted parent takes them along.
const live = new Set<ChildProcess>();
let exitHooksInstalled = false;

function killAllLive(signal: NodeJS.Signals): void {
  for (const child of live) {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on("exit", () => killAllLive("SIGKILL"));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = (): void => {
      killAllLive("SIGTERM");
      // Only we listen: keep the default behaviour (die by that signal) once Prism is told to stop.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes start with ESC
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "");
}

function describeHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/** Starts Prism and resolves once it answers HTTP requests. */
export async function startPrism(options: PrismOptions = {}): Promise<PrismServer> {
  const host = options.host ?? DEFAULT_HOST;
  const document = path.resolve(options.document ?? contractJsonPath);
  const cli = prismCli();
  if (cli === undefined || !existsSync(cli)) {
    throw new Error("Prism is not installed (@stoplight/prism-cli, a dependency of partner-api-devkit); run `npm ci`");
  }
  if (!existsSync(document)) {
    throw new Error(
      `cannot start Prism: the document ${displayPath(document)} does not exist (run \`npm run bundle\`)`,
    );
  }
  if (options.logLevel !== undefined && !PRISM_LOG_LEVELS.includes(options.logLevel)) {
    throw new Error(
      `cannot start Prism: logLevel must be one of ${PRISM_LOG_LEVELS.join(", ")}, got "${options.logLevel}"`,
    );
  }
  if (options.port !== undefined && (!Number.isInteger(options.port) || options.port < 1 || options.port > 65_535)) {
    throw new Error(`cannot start Prism: port must be an integer from 1 to 65535, got ${options.port}`);
  }
  // A port chosen by us can be taken between choosing and binding: try another one once.
  const attempts = options.port === undefined ? 2 : 1;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const port = options.port ?? (await findFreePort(host));
    try {
      return await startOnce(cli, host, port, document, options);
    } catch (error) {
      lastError = error;
      if (!(error instanceof PrismStartError && error.addressInUse)) break;
    }
  }
  throw lastError;
}

class PrismStartError extends Error {
  readonly addressInUse: boolean;
  constructor(message: string, addressInUse: boolean) {
    super(message);
    this.addressInUse = addressInUse;
    this.name = "PrismStartError";
  }
}

async function startOnce(
  cli: string,
  host: string,
  port: number,
  document: string,
  options: PrismOptions,
): Promise<PrismServer> {
  const url = `http://${describeHost(host)}:${port}`;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const stopGraceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
  const recent: string[] = [];
  // Readiness is a TCP connection, so make sure nothing else holds the port first.
  if (!(await canBind(host, port))) {
    throw new PrismStartError(`cannot start Prism on ${url}: port ${port} is already in use`, true);
  }

  installExitHooks();
  const child = spawn(
    process.execPath,
    [
      "--import",
      ORPHAN_GUARD,
      cli,
      "mock",
      document,
      "-h",
      host,
      "-p",
      String(port),
      "-v",
      options.logLevel ?? DEFAULT_PRISM_LOG_LEVEL,
    ],
    {
      cwd: path.dirname(document),
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
    },
  );
  live.add(child);
  let exited = false;
  let exitInfo = "";
  const exitPromise = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = true;
      exitInfo = signal ? `signal ${signal}` : `exit code ${code}`;
      live.delete(child);
      resolve();
    });
  });
  child.once("error", (error) => {
    recent.push(`spawn error: ${error.message}`);
  });

  let listening = false;
  const onText = (chunk: Buffer, buffer: { rest: string }): void => {
    const text = buffer.rest + chunk.toString("utf8");
    const lines = text.split(/\r?\n/);
    buffer.rest = lines.pop() ?? "";
    for (const raw of lines) {
      const line = stripAnsi(raw).trimEnd();
      if (line === "") continue;
      if (line.includes("Prism is listening")) listening = true;
      recent.push(line);
      if (recent.length > KEPT_LOG_LINES) recent.shift();
      options.onLog?.(line);
    }
  };
  const outBuffer = { rest: "" };
  const errBuffer = { rest: "" };
  child.stdout?.on("data", (chunk: Buffer) => onText(chunk, outBuffer));
  child.stderr?.on("data", (chunk: Buffer) => onText(chunk, errBuffer));

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (exited) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => {
        if (!exited) child.kill("SIGKILL");
      }, stopGraceMs);
      await exitPromise;
      clearTimeout(timer);
      child.stdin?.destroy();
    })();
    return stopping;
  };

  const lastLines = (): string =>
    recent.length > 0 ? `\nlast lines from Prism:\n  ${recent.slice(-15).join("\n  ")}` : "";
  const deadline = performance.now() + startTimeoutMs;
  while (true) {
    if (exited) {
      const inUse = recent.some((line) => line.includes("EADDRINUSE"));
      throw new PrismStartError(
        `Prism exited (${exitInfo}) before it was ready on ${url}` +
          (inUse ? ` (port ${port} is already in use)` : "") +
          lastLines(),
        inUse,
      );
    }
    if (listening || (await accepts(host, port))) {
      // The log line can come a moment before the socket accepts; a connection proves it.
      if (await accepts(host, port)) break;
    }
    if (performance.now() > deadline) {
      await stop();
      throw new PrismStartError(
        `Prism did not answer on ${url} within ${startTimeoutMs / 1000} s${lastLines()}`,
        false,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return { url, port, pid: child.pid ?? -1, stop };
}

/**
 * True when something accepts a TCP connection there. Prism opens its socket only once its routes are
 * loaded, and a bare connection (unlike an HTTP request) leaves no line in Prism's log.
 */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (result: boolean): void => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
