/**
 * `npm run mock`: serves the bundled contract with Prism, on 127.0.0.1:4010 unless MOCK_HOST / MOCK_PORT say
 * otherwise. Bundles first when generated/openapi.{yaml,json} are stale. Ctrl-C stops Prism and exits.
 * Prism logs rejected requests (level warn); MOCK_LOG_LEVEL=info logs every request, but see
 * DEFAULT_PRISM_LOG_LEVEL in scripts/lib/prism.ts for the crash that level exposes.
 */
import { isIP } from "node:net";
import { ensureBundle } from "./lib/bundle.ts";
import { fail, formatDuration, step } from "./lib/log.ts";
import {
  DEFAULT_PRISM_LOG_LEVEL,
  PRISM_LOG_LEVELS,
  type PrismLogLevel,
  type PrismServer,
  parsePort,
  startPrism,
} from "./lib/prism.ts";

export const DEFAULT_MOCK_HOST = "127.0.0.1";
export const DEFAULT_MOCK_PORT = 4010;

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

const started = performance.now();
const args = process.argv.slice(2);
if (args.length > 0) {
  fail(
    `unknown argument ${args.map((a) => `"${a}"`).join(", ")}; usage: [MOCK_HOST=host] [MOCK_PORT=port] npm run mock`,
    2,
  );
}

let port = DEFAULT_MOCK_PORT;
let host = DEFAULT_MOCK_HOST;
let logLevel: PrismLogLevel = DEFAULT_PRISM_LOG_LEVEL;
try {
  if (process.env.MOCK_PORT !== undefined && process.env.MOCK_PORT !== "")
    port = parsePort(process.env.MOCK_PORT, "MOCK_PORT");
  if (process.env.MOCK_HOST !== undefined && process.env.MOCK_HOST !== "") host = parseHost(process.env.MOCK_HOST);
  if (process.env.MOCK_LOG_LEVEL !== undefined && process.env.MOCK_LOG_LEVEL !== "")
    logLevel = parseLogLevel(process.env.MOCK_LOG_LEVEL);
} catch (error) {
  fail((error as Error).message, 2);
}

let server: PrismServer | undefined;
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) {
      process.stderr.write("stopping again: exiting now\n");
      process.exit(130);
    }
    stopping = true;
    const stopStarted = performance.now();
    process.stderr.write(`\n${signal === "SIGINT" ? "Ctrl-C" : signal}: stopping the mock…\n`);
    void (server?.stop() ?? Promise.resolve()).then(() => {
      process.stderr.write(`✓ mock stopped (${formatDuration(performance.now() - stopStarted)})\n`);
      process.exit(0);
    });
  });
}

try {
  const { written, output } = await step("bundle the contract if stale", () => ensureBundle());
  process.stderr.write(
    written.length > 0 ? `  wrote ${written.join(" and ")}\n` : "  generated/openapi.{yaml,json} already up to date\n",
  );
  const operations = countOperations(output.document);
  let ready = false;
  server = await step(`start Prism on ${host}:${port}`, () =>
    startPrism({
      host,
      port,
      logLevel,
      // Prism lists every route before it listens; after that, forward its request log.
      onLog: (line) => {
        if (ready) process.stderr.write(`${line}\n`);
      },
    }),
  );
  ready = true;
  if (stopping) {
    await server.stop();
    process.exit(0);
  }
  console.log(
    `Mock serving ${operations} operations of generated/openapi.yaml on ${server.url} ` +
      `(Prism pid ${server.pid}, started in ${formatDuration(performance.now() - started)}). Ctrl-C stops it.`,
  );
  console.log(`Try: curl -H 'X-API-Key: any' ${server.url}/v1/companies`);
} catch (error) {
  const message = (error as Error).message;
  const hint = /already in use|EADDRINUSE/.test(message)
    ? `\nset MOCK_PORT to a free port, e.g. MOCK_PORT=4011 npm run mock`
    : "";
  fail(`${message}${hint}`);
}

function parseLogLevel(value: string): PrismLogLevel {
  const level = value.trim().toLowerCase();
  if (!(PRISM_LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`MOCK_LOG_LEVEL must be one of ${PRISM_LOG_LEVELS.join(", ")}, got "${value}"`);
  }
  return level as PrismLogLevel;
}

function parseHost(value: string): string {
  const host = value.trim();
  const hostname =
    /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
  if (isIP(host) === 0 && !hostname.test(host)) {
    throw new Error(`MOCK_HOST must be an IP address or a host name (e.g. 127.0.0.1 or localhost), got "${value}"`);
  }
  return host;
}

function countOperations(document: Record<string, unknown>): number {
  const paths = Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>);
  return paths.reduce((sum, item) => sum + HTTP_METHODS.filter((method) => method in item).length, 0);
}
