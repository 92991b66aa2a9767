/**
 * A partner's project, as far as `npx partner-api …` goes, and a CI step run in it: a folder whose
 * node_modules/.bin/partner-api runs the devkit's CLI from source (the bin, unbuilt), so npx finds it as it finds
 * an installed one; a script run as GitHub Actions runs a `run:` step (bash, stopping at the first failing command).
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";

const MAIN = path.join(repoRoot, "devkit", "src", "cli", "main.ts");

/** A new temporary project folder with the bin and a package.json (`scripts` among its fields); the caller removes it. */
export function projectWithBin(scripts: Record<string, string> = {}): string {
  const folder = mkdtempSync(path.join(tmpdir(), "partner-api-project-"));
  mkdirSync(path.join(folder, "node_modules", ".bin"), { recursive: true });
  const bin = path.join(folder, "node_modules", ".bin", "partner-api");
  const quoted = [process.execPath, ...SOURCE_NODE_ARGS, MAIN].map((arg) => `'${arg}'`).join(" ");
  writeFileSync(bin, `#!/bin/sh\nexec ${quoted} "$@"\n`);
  chmodSync(bin, 0o755);
  writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: "partner-project", private: true, scripts }));
  return folder;
}

/**
 * Runs `script` in `cwd` as a CI step does, in a process group of its own (`started` gets its id, for the caller
 * to kill whatever is left); resolves with its exit code and everything it printed.
 */
export async function runCiStep(
  script: string,
  cwd: string,
  started: (pid: number) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; output: string }> {
  const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  started(child.pid!);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output };
}

/** Whether anything answers HTTP at `url` (within a second). */
export async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1_000) }).then((response) => response.arrayBuffer());
    return true;
  } catch {
    return false;
  }
}
