/**
 * The one CLI runner. A command is a handler plus its `node:util` `parseArgs` options; `runCommand()` parses
 * the arguments, prints `--help`, times the work, prints what went wrong, and maps the outcome to one exit
 * code each: 0 done, 1 the job's own "no" (a failed gate, a failed lint), 2 bad input, 3 a bug.
 * Handlers never call `process.exit`, so tests call them in-process.
 * The `partner-api` command runs on it, and so does every CLI of the repository (scripts/, bench/), which imports
 * it as `partner-api-devkit/cli` (./kit.ts): the devkit owns the runner, the repository uses the package.
 */
import { isIP } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { formatDuration } from "../common/duration.ts";
import { JobFailure, UsageError } from "../common/errors.ts";

export { JobFailure, UsageError };

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export const EXIT = { ok: 0, failed: 1, badInput: 2, internal: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Where a command writes: results to `out` (stdout), progress and the summary to `err` (stderr). */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

const processIO: CliIO = {
  out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
};

/** What a handler receives: the parsed options and positionals, the output channels and an abort signal. */
export interface CommandContext<Options extends ParseArgsOptionsConfig> {
  values: ParsedValues<Options>;
  positionals: string[];
  io: CliIO;
  /** Aborted on Ctrl-C / SIGTERM / SIGHUP when run through `main()`; long-running commands stop when it fires. */
  signal: AbortSignal;
}

type ParsedValues<Options extends ParseArgsOptionsConfig> = {
  [K in keyof Options]?: Options[K] extends { type: "boolean" }
    ? Options[K] extends { multiple: true }
      ? boolean[]
      : boolean
    : Options[K] extends { multiple: true }
      ? string[]
      : string;
};

export interface Command<Options extends ParseArgsOptionsConfig = ParseArgsOptionsConfig> {
  /** How the user invokes it, e.g. `npm run diff --` or `partner-api webhooks trigger`. */
  name: string;
  /** One line: what it does. */
  summary: string;
  /** The usage text printed by `--help` (after the name and summary). */
  usage: string;
  options: Options;
  /** How many positionals it takes (default none). */
  positionals?: { min?: number; max?: number };
  /**
   * Does the job. Returns nothing (done), or a short summary line; throws `UsageError` for bad input and
   * `JobFailure` for the job's own "no". Anything else is a bug (exit 3).
   */
  run(context: CommandContext<Options>): Promise<string | undefined> | string | undefined;
  /** Leaves the closing "done in …" line out (for servers that print their own stop line). */
  quiet?: boolean;
}

export interface CommandGroup {
  name: string;
  summary: string;
  commands: Record<string, Command | CommandGroup>;
  /** Shown by `--version`. */
  version?: string;
  /**
   * The command that runs when no command is named (no argument, or an option first): `partner-api sandbox
   * --port 0` is `partner-api sandbox start --port 0`.
   */
  default?: string;
}

/** Declares a command with its option types inferred. */
export function defineCommand<const Options extends ParseArgsOptionsConfig>(
  command: Command<Options>,
): Command<Options> {
  return command;
}

function isGroup(entry: Command | CommandGroup): entry is CommandGroup {
  return "commands" in entry;
}

function helpOf(command: Command): string {
  return `${command.name}: ${command.summary}\n\n${command.usage.trimEnd()}\n`;
}

function groupHelp(group: CommandGroup): string {
  const width = Math.max(...Object.keys(group.commands).map((name) => name.length));
  const lines = Object.entries(group.commands).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`);
  const usage =
    group.default === undefined
      ? `Usage: ${group.name} <command> [options]`
      : `Usage: ${group.name} [options]            the same as ${group.name} ${group.default} [options]\n       ${group.name} <command> [options]`;
  return `${group.name}: ${group.summary}\n\n${usage}\n\nCommands:\n${lines.join("\n")}\n\nRun "${group.name} <command> --help" for a command's options.\n`;
}

const GROUP_OPTIONS = new Set(["--help", "-h", "help", "--version", "-v"]);

/** Describes a value for an error message without letting a long one flood it. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** A whole number option from `min` to `max`; throws `UsageError` naming the option otherwise. */
export function parseInteger(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined || value === "") return undefined;
  const number = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < min || number > max) {
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got ${describeValue(value)}`);
  }
  return number;
}

/** A positive number option (decimals allowed) up to `max`; throws `UsageError` naming the option otherwise. */
export function parsePositiveNumber(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined || value === "") return undefined;
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number <= 0 || number > max) {
    throw new UsageError(`${name} must be a number greater than 0 and at most ${max}, got ${describeValue(value)}`);
  }
  return number;
}

/**
 * An option's value, else the environment variable's (an empty variable counts as unset), with the name of
 * whichever was used, so an error about the value names what the user actually set.
 */
export function optionOrEnv(
  value: string | undefined,
  option: string,
  variable: string,
): { value: string | undefined; name: string } {
  if (value !== undefined) return { value, name: option };
  const fromEnv = process.env[variable];
  return { value: fromEnv === "" ? undefined : fromEnv, name: variable };
}

const HOST_NAME =
  /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** A host to listen on (an IP address or a host name); throws `UsageError` naming the option otherwise. */
export function parseHost(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === "") return undefined;
  const host = value.trim();
  if (isIP(host) === 0 && !HOST_NAME.test(host)) {
    throw new UsageError(
      `${name} must be an IP address or a host name (e.g. 127.0.0.1 or localhost), got ${describeValue(value)}`,
    );
  }
  return host;
}

/**
 * Runs a command (or a group of subcommands) on `argv` and returns the exit code. Never throws and never
 * exits the process.
 */
export async function runCommand(
  entry: Command | CommandGroup,
  argv: readonly string[],
  io: CliIO = processIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<ExitCode> {
  if (isGroup(entry)) {
    const [first, ...rest] = argv;
    const fallback = entry.default === undefined ? undefined : entry.commands[entry.default];
    if (fallback && (first === undefined || (first.startsWith("-") && !GROUP_OPTIONS.has(first))))
      return runCommand(fallback, argv, io, signal);
    if (first === undefined || first === "--help" || first === "-h" || first === "help") {
      (first === undefined ? io.err : io.out)(groupHelp(entry));
      return first === undefined ? EXIT.badInput : EXIT.ok;
    }
    if (first === "--version" || first === "-v") {
      io.out(entry.version ?? "unknown");
      return EXIT.ok;
    }
    const sub = Object.hasOwn(entry.commands, first) ? entry.commands[first] : undefined;
    if (!sub) {
      io.err(
        `error: unknown command ${describeValue(first)}; expected one of ${Object.keys(entry.commands).join(", ")} (${entry.name} --help)`,
      );
      return EXIT.badInput;
    }
    return runCommand(sub, rest, io, signal);
  }
  const command = entry;
  const started = performance.now();
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.err(`error: ${(error as Error).message} (${command.name} --help)`);
    return EXIT.badInput;
  }
  if (parsed.values.help) {
    io.out(helpOf(command));
    return EXIT.ok;
  }
  const { min = 0, max = 0 } = command.positionals ?? {};
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    const extra = parsed.positionals.length > max;
    io.err(
      `error: ${extra ? `unexpected argument ${describeValue(parsed.positionals[max])}` : "missing argument"} (${command.name} --help)`,
    );
    return EXIT.badInput;
  }
  try {
    const summary = await command.run({
      values: parsed.values as never,
      positionals: parsed.positionals,
      io,
      signal,
    });
    if (!command.quiet) io.err(`${summary ?? "done"} in ${formatDuration(performance.now() - started)}`);
    return EXIT.ok;
  } catch (error) {
    const took = formatDuration(performance.now() - started);
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}`);
      return EXIT.badInput;
    }
    if (error instanceof JobFailure) {
      io.err(`FAILED: ${error.message} (after ${took})`);
      return EXIT.failed;
    }
    io.err(`internal error (a bug, not a verdict) after ${took}: ${(error as Error)?.stack ?? String(error)}`);
    return EXIT.internal;
  }
}

/**
 * The entry point of a CLI file: runs the command on `process.argv`, aborts its signal on Ctrl-C / SIGTERM /
 * SIGHUP (a second signal exits at once), and sets `process.exitCode`.
 */
export async function main(entry: Command | CommandGroup): Promise<void> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(`\n${signal === "SIGINT" ? "Ctrl-C" : signal}: stopping…\n`);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  process.exitCode = await runCommand(entry, process.argv.slice(2), processIO, controller.signal);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  process.off("SIGHUP", onSignal);
}

/** Resolves when `signal` aborts: a server command awaits it, then stops its server. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * Whether the module whose `import.meta.url` is `moduleUrl` is the file Node was asked to run, so a
 * CLI file calls `main()` only then and tests can import its command without running it.
 */
export function isEntryPoint(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && moduleUrl === pathToFileURL(path.resolve(entry)).href;
}

/** Runs one named step of a command, printing its name and how long it took; rethrows its error after saying so. */
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
