import { spawnSync } from "node:child_process";
import path from "node:path";
import { repoRoot } from "../../scripts/lib/paths.ts";

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

/** Runs one of the repo's TypeScript CLIs (`scripts/<name>.ts`) with tsx, as `npm run <name>` does. */
export function runScript(
  script: string,
  args: string[] = [],
  options: { env?: NodeJS.ProcessEnv; timeout?: number; cwd?: string } = {},
): RunResult {
  const result = spawnSync(
    process.execPath,
    [path.join(repoRoot, "node_modules/tsx/dist/cli.mjs"), path.join(repoRoot, "scripts", script), ...args],
    {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env },
      encoding: "utf8",
      timeout: options.timeout ?? 60_000,
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, output: result.stdout + result.stderr };
}
