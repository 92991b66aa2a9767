/**
 * `partner-api mock` (and `npm run mock` in this repository): serves the bundled contract with Prism on
 * 127.0.0.1:4010 unless --host/--port (or MOCK_HOST/MOCK_PORT) say otherwise, until Ctrl-C.
 * Prism logs rejected requests (level warn); --log-level info logs every request, but see
 * DEFAULT_PRISM_LOG_LEVEL in ../prism.ts for the crash that level exposes.
 */
import { readFile } from "node:fs/promises";
import { isHttpMethod } from "partner-api-client";
import { formatDuration } from "../common/duration.ts";
import { startMockFront } from "../mock-front.ts";
import { contractJsonPath, displayPath } from "../paths.ts";
import { DEFAULT_PRISM_LOG_LEVEL, PRISM_LOG_LEVELS, type PrismLogLevel, startPrism } from "../prism.ts";
import { untilStopped } from "./lifecycle.ts";
import {
  type CliIO,
  defineCommand,
  JobFailure,
  optionOrEnv,
  parseHost,
  parseInteger,
  step,
  UsageError,
} from "./runner.ts";

export const DEFAULT_MOCK_HOST = "127.0.0.1";
export const DEFAULT_MOCK_PORT = 4010;

export interface MockCommandOptions {
  /** How the user invokes it: `partner-api mock` or `npm run mock --`. */
  name: string;
  /** The contract Prism serves; the devkit's bundled contract by default. */
  document?: string;
  /** Work before Prism starts (the repository bundles the contract when stale); returns the document's text. */
  prepare?: (io: CliIO) => Promise<Record<string, unknown>>;
}

export function mockCommand({ name, document = contractJsonPath, prepare }: MockCommandOptions) {
  return defineCommand({
    name,
    summary: "serves the partner API contract with a Prism mock (stateless examples, contract rules enforced)",
    usage: `Usage: ${name} [--port <port>] [--host <host>] [--log-level <level>] [--print-address]

Options:
  --port <port>        port to listen on (default ${DEFAULT_MOCK_PORT}; env MOCK_PORT; 0 picks a free one)
  --host <host>        interface to listen on (default ${DEFAULT_MOCK_HOST}; env MOCK_HOST)
  --log-level <level>  Prism's log level: ${PRISM_LOG_LEVELS.join(", ")} (default ${DEFAULT_PRISM_LOG_LEVEL}; env MOCK_LOG_LEVEL)
  --print-address      print the mock's address alone as the first line on stdout (the summary goes to
                       stderr), for a script to read
  --no-exit-with-parent  keep serving after the process that started it (npx, npm run) is gone
  -h, --help           this text

Ctrl-C (or SIGTERM, or the end of the process that started it) stops the mock and Prism. Exit codes: 0 stopped, 1 Prism could not start, 2 bad option.`,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "log-level": { type: "string" },
      "print-address": { type: "boolean" },
      "no-exit-with-parent": { type: "boolean" },
    },
    quiet: true,
    async run({ values, io, signal }) {
      const started = performance.now();
      const portOption = optionOrEnv(values.port, "--port", "MOCK_PORT");
      const port = parseInteger(portOption.value, portOption.name, 0, 65_535) ?? DEFAULT_MOCK_PORT;
      const hostOption = optionOrEnv(values.host, "--host", "MOCK_HOST");
      const host = parseHost(hostOption.value, hostOption.name) ?? DEFAULT_MOCK_HOST;
      const logLevel = parseLogLevel(values["log-level"]);
      const contract = prepare ? await prepare(io) : await readContract(document);
      let ready = false;
      // The front (mock-front.ts) listens where asked; Prism on a free loopback port of its own behind it.
      const front = await startMockFront(host, port, contract).catch((error: NodeJS.ErrnoException) => {
        const hint = `\nset --port (or MOCK_PORT) to a free port, e.g. ${name} --port ${port === 4011 ? 4012 : 4011}`;
        throw new JobFailure(
          error.code === "EADDRINUSE"
            ? `cannot start the mock on ${host}:${port}: port ${port} is already in use${hint}`
            : `cannot listen on ${host}:${port}: ${error.code ?? error.message}`,
        );
      });
      const server = await step(io, "start Prism", () =>
        startPrism({
          host: "127.0.0.1",
          document,
          logLevel,
          // Prism lists every route before it listens; after that, forward its request log.
          onLog: (line) => {
            if (ready) io.err(line);
          },
        }),
      ).catch(async (error: Error) => {
        await front.close();
        throw new JobFailure(error.message);
      });
      front.forwardTo(server.port);
      ready = true;
      // With --print-address the address is the first line on stdout, for a script; the summary is for a person.
      const say = values["print-address"] ? io.err : io.out;
      if (values["print-address"]) io.out(front.url);
      say(
        `Mock serving ${countOperations(contract)} operations of ${displayPath(document)} on ${front.url} ` +
          `(Prism pid ${server.pid}, started in ${formatDuration(performance.now() - started)}). Ctrl-C stops it.`,
      );
      say(`Try: curl -H 'X-API-Key: any' ${front.url}/v1/companies`);
      await untilStopped(signal, io, !values["no-exit-with-parent"]);
      const stopStarted = performance.now();
      await front.close();
      await server.stop();
      io.err(`✓ mock stopped (${formatDuration(performance.now() - stopStarted)})`);
      return undefined;
    },
  });
}

async function readContract(file: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new JobFailure(
      `cannot read the contract ${displayPath(file)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function parseLogLevel(value: string | undefined): PrismLogLevel {
  const { value: text, name } = optionOrEnv(value, "--log-level", "MOCK_LOG_LEVEL");
  if (text === undefined) return DEFAULT_PRISM_LOG_LEVEL;
  const level = text.trim().toLowerCase();
  if (!(PRISM_LOG_LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`${name} must be one of ${PRISM_LOG_LEVELS.join(", ")}, got "${text}"`);
  }
  return level as PrismLogLevel;
}

function countOperations(document: Record<string, unknown>): number {
  const paths = Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>);
  return paths.reduce((sum, item) => sum + Object.keys(item).filter(isHttpMethod).length, 0);
}
