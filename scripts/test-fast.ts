/**
 * `npm test`, the fast command: Biome (`npm run check`), the type check with TypeScript 7's native compiler
 * (`npm run typecheck:fast`) and the fast vitest projects (`npm run test:fast-vitest`) started at the same time
 * rather than one after the other. The type check is one thread and Biome a few seconds, while vitest's workers
 * wait on sockets and timers part of their time: run side by side they fill the cores the sequence left idle
 * (figures: docs/design/test-suites.md). `npm run test:all` (CI) type-checks with tsc 5.9 (`npm run typecheck`),
 * the compiler that builds the package.
 *
 * vitest keeps the terminal (its live progress); Biome's and tsc's output is held and printed, each under its name,
 * when vitest is done, then one line per step with its exit code and time. Arguments are vitest's
 * (`npm test -- test/client/` runs one folder, with Biome and tsc over everything as before).
 *
 * It loads nothing but Node's own modules: it starts before every step, so what it imports delays all three (the
 * devkit's CLI kit would cost two seconds of CPU here).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./lib/paths.ts";

/** One step of the fast command: an npm script of package.json, run as npm would run it. */
export interface Step {
  /** The npm script's name, shown in the summary. */
  name: string;
  /** The shell command line (npm's `scripts` entry, plus any arguments). */
  command: string;
  /** Whether the step writes to the terminal as it runs (vitest), or its output is held until the end. */
  live: boolean;
  /**
   * Added to this process's niceness for the step (`nice -n`: higher yields sooner, 19 at most). Biome and tsc get 10:
   * they fill the time vitest's workers leave idle rather than slow them (vitest has the tests that wait on timers).
   */
  nice: number;
}

export interface StepResult {
  name: string;
  /** The step's exit code; null when it was ended by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it never started, when it did not. */
  error?: string;
  /** What a held step printed (stdout then stderr interleaved as written); empty for a live step. */
  output: string;
  ms: number;
}

/** How much nicer than vitest the steps beside it run (Biome, tsc). */
export const BACKGROUND_NICE = 10;

/** The npm scripts `npm test` runs side by side, in the order their results are reported. */
export const FAST_STEPS = ["check", "typecheck:fast", "test:fast-vitest"] as const;

const USAGE = `Usage: npm test [-- <vitest arguments>]

Runs at the same time: Biome (npm run check), TypeScript 7's tsc --noEmit (npm run typecheck:fast, incremental)
and the fast vitest projects without the tests tagged slow (npm run test:fast-vitest). Arguments go to vitest.
The whole set, what CI runs, with tsc 5.9 (npm run typecheck): npm run test:all.

Exit codes: 0 every step passed, 1 a step said no (lint, type or test failures: each named with its own exit
code), 3 a step could not start or was killed by a signal.`;

/** Quotes an argument for the shell npm runs scripts with (sh -c). */
export function shellQuote(argument: string): string {
  return /^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replace(/'/g, `'\\''`)}'`;
}

/** The steps from package.json's scripts; `vitestArgs` are appended to the vitest step. Throws naming a missing script. */
export function fastSteps(scripts: Readonly<Record<string, string>>, vitestArgs: readonly string[]): Step[] {
  return FAST_STEPS.map((name) => {
    const command = scripts[name];
    if (command === undefined) throw new Error(`package.json has no script "${name}", which npm test runs`);
    const live = name === "test:fast-vitest";
    const extra = live ? vitestArgs.map(shellQuote) : [];
    return { name, command: [command, ...extra].join(" "), live, nice: live ? 0 : BACKGROUND_NICE };
  });
}

/**
 * Runs the steps at the same time, each through `sh -c` (under `nice -n` when it has a niceness) with
 * node_modules/.bin first on PATH (as npm runs a script),
 * in `cwd`. Resolves when all have ended, in the steps' order. `started` gets each child (to stop them on a signal).
 */
export function runSteps(
  steps: readonly Step[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; started?: (child: ChildProcess) => void },
): Promise<StepResult[]> {
  const env = { ...(options.env ?? process.env) };
  env.PATH = [path.join(options.cwd, "node_modules", ".bin"), env.PATH].filter(Boolean).join(path.delimiter);
  return Promise.all(
    steps.map(
      (step) =>
        new Promise<StepResult>((resolve) => {
          const begun = performance.now();
          const chunks: Buffer[] = [];
          // `nice -n` adds to this process's niceness before the shell starts, so every process of the step has it.
          const [command, args] =
            step.nice === 0
              ? ["sh", ["-c", step.command]]
              : ["nice", ["-n", String(step.nice), "sh", "-c", step.command]];
          const child = spawn(command, args, {
            cwd: options.cwd,
            env,
            stdio: step.live ? "inherit" : ["ignore", "pipe", "pipe"],
          });
          options.started?.(child);
          child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
          child.stderr?.on("data", (chunk: Buffer) => chunks.push(chunk));
          let error: string | undefined;
          child.on("error", (cause) => {
            error = cause.message;
          });
          child.on("close", (code, signal) =>
            resolve({
              name: step.name,
              code: error === undefined ? code : null,
              signal,
              ...(error === undefined ? {} : { error }),
              output: Buffer.concat(chunks).toString("utf8"),
              ms: performance.now() - begun,
            }),
          );
        }),
    ),
  );
}

/** The command's exit code: 0 all passed, 3 a step did not finish (no start, a signal), else 1. */
export function exitCodeOf(results: readonly StepResult[]): 0 | 1 | 3 {
  if (results.some((result) => result.code === null)) return 3;
  return results.every((result) => result.code === 0) ? 0 : 1;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** What the command prints at the end: each held step's output under its name, then a line per step and the total. */
export function report(results: readonly StepResult[], totalMs: number): string {
  const lines: string[] = [];
  for (const result of results) {
    const output = result.output.trimEnd();
    if (output === "") continue;
    lines.push(`── npm run ${result.name} ──`, output, "");
  }
  for (const result of results) {
    const how =
      result.error !== undefined
        ? `could not start: ${result.error}`
        : result.signal !== null
          ? `killed by ${result.signal}`
          : result.code === 0
            ? "passed"
            : `failed, exit ${result.code}`;
    lines.push(`${result.code === 0 ? "✓" : "✗"} npm run ${result.name}: ${how} (${seconds(result.ms)})`);
  }
  const failed = results.filter((result) => result.code !== 0).map((result) => result.name);
  lines.push(
    failed.length === 0
      ? `npm test: ${results.length} steps passed side by side in ${seconds(totalMs)}`
      : `npm test: ${failed.join(", ")} failed (${seconds(totalMs)} in all)`,
  );
  return `${lines.join("\n")}\n`;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") && !argv.includes("--")) {
    process.stdout.write(`npm test: the fast command\n\n${USAGE}\n`);
    return 0;
  }
  const scripts = (
    JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts;
  const steps = fastSteps(scripts, argv[0] === "--" ? argv.slice(1) : argv);
  const children: ChildProcess[] = [];
  const stop = (signal: NodeJS.Signals) => {
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  const begun = performance.now();
  process.stderr.write(`npm test: ${steps.map((step) => `npm run ${step.name}`).join(", ")}, side by side\n`);
  const results = await runSteps(steps, { cwd: repoRoot, started: (child) => children.push(child) });
  process.stderr.write(report(results, performance.now() - begun));
  return exitCodeOf(results);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `npm test: a bug: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 3;
    },
  );
}
