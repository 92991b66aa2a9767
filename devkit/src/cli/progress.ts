/**
 * What the devkit's commands share: progress lines written to the command's `io.err` (never straight to the
 * process), and the options of its servers that may also come from the environment (port, host).
 */
import { isIP } from "node:net";
import { type CliIO, UsageError } from "../../../scripts/lib/cli.ts";
import { formatDuration } from "../../../scripts/lib/log.ts";

/** Runs one named step, printing its name and how long it took; rethrows its error after saying it failed. */
export async function step<T>(io: CliIO, name: string, run: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  io.err(`• ${name}…`);
  try {
    const result = await run();
    io.err(`✓ ${name} (${formatDuration(performance.now() - started)})`);
    return result;
  } catch (error) {
    io.err(`✗ ${name} failed after ${formatDuration(performance.now() - started)}`);
    throw error;
  }
}

/** An option's value, else the environment variable's (an empty variable counts as unset). */
export function optionOrEnv(value: string | undefined, variable?: string): [string | undefined, string] {
  if (value !== undefined || variable === undefined) return [value, ""];
  const fromEnv = process.env[variable];
  return fromEnv === undefined || fromEnv === "" ? [undefined, ""] : [fromEnv, variable];
}

/** A port number from an option or a variable; the error names whichever one was given. */
export function parsePortOption(value: string | undefined, option: string, variable: string): number | undefined {
  const [text, from] = optionOrEnv(value, variable);
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  const port = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || port < 1 || port > 65_535) {
    throw new UsageError(`${from || option} must be a port number from 1 to 65535, got "${text}"`);
  }
  return port;
}

const HOST_NAME =
  /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** A host to listen on from an option or a variable: an IP address or a host name. */
export function parseHostOption(value: string | undefined, option: string, variable?: string): string | undefined {
  const [text, from] = optionOrEnv(value, variable);
  if (text === undefined) return undefined;
  const host = text.trim();
  if (isIP(host) === 0 && !HOST_NAME.test(host)) {
    throw new UsageError(
      `${from || option} must be an IP address or a host name (e.g. 127.0.0.1 or localhost), got "${text}"`,
    );
  }
  return host;
}
