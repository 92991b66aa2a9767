import { spawnSync } from "node:child_process";
import path from "node:path";
import { type Command, type CommandGroup, runCommand } from "partner-api-devkit/cli";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

/**
 * Runs one of the repo's TypeScript CLIs with node, as `npm run <name>` does, in a child process: for the real
 * exit code. `script` is a file under scripts/ (`lint.ts`) or a path from the repository root (`bench/cli.ts`).
 */
export function runScript(
  script: string,
  args: string[] = [],
  options: { env?: NodeJS.ProcessEnv; timeout?: number; cwd?: string } = {},
): RunResult {
  const result = spawnSync(
    process.execPath,
    [...SOURCE_NODE_ARGS, path.join(repoRoot, script.includes("/") ? "" : "scripts", script), ...args],
    {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env },
      encoding: "utf8",
      timeout: options.timeout ?? 60_000,
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, output: result.stdout + result.stderr };
}

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a CLI's command in this process through the one runner, capturing what it prints. */
export async function runInProcess(
  command: Command | CommandGroup,
  argv: string[] = [],
  signal?: AbortSignal,
): Promise<InProcessRun> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const line = (text: string) => (text.endsWith("\n") ? text : `${text}\n`);
  const io = { out: (text: string) => stdout.push(line(text)), err: (text: string) => stderr.push(line(text)) };
  const code = await runCommand(command, argv, io, signal);
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}

/**
 * `runInProcess` with `dir` as the working directory for the run: for a command that finds its repository from
 * where it is started (`npm run diff -- --merge-base`), without a process of its own. The directory is the
 * process's own (vitest's fork workers run one file at a time, its tests in order), put back when the run ends;
 * in a worker thread `process.chdir` throws, so a change of pool fails here rather than misleading a test.
 */
export async function runInDirectory(
  dir: string,
  command: Command | CommandGroup,
  argv: string[] = [],
): Promise<InProcessRun> {
  const before = process.cwd();
  process.chdir(dir);
  try {
    return await runInProcess(command, argv);
  } finally {
    process.chdir(before);
  }
}
