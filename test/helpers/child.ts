/**
 * One `partner-api` command run as a process of its own, for the tests that attack it: its memory read from the
 * kernel (/proc/<pid>/status: the resident set now, and its high-water mark since it started), its output, and
 * how it ends on a signal. Each started process is in a group of its own, killed by `killStarted()` (an
 * afterEach) whatever the test did.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";

const MAIN = path.join(repoRoot, "devkit", "src", "cli", "main.ts");
const started: number[] = [];

/** Kills every process group started here and not yet ended (call it in afterEach). */
export function killStarted(): void {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves when it has exited. */
  exited: Promise<Exit>;
  /** The first match of `pattern` in its output, waiting for it (at most `ms`). */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** Its resident set now, in bytes (VmRSS). */
  rss(): number;
  /** The most it has held resident since it started, in bytes (VmHWM). */
  peakRss(): number;
}

/** A field of /proc/<pid>/status in bytes: VmRSS (resident now) or VmHWM (the most since it started). */
export function statusField(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
  if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(match[1]) * 1024;
}

/**
 * Starts `partner-api <args>` from source with node (one process: its pid is the command's); `nodeArgs`
 * go to node first (`--max-old-space-size=…`). PARTNER_API_MAIN runs another checkout's CLI instead (to see an
 * attack succeed against code without the bounds: PARTNER_API_MAIN=/path/to/main/devkit/src/cli/main.ts).
 */
export function startCli(args: readonly string[], nodeArgs: readonly string[] = []): CliProcess {
  return startScript(process.env.PARTNER_API_MAIN ?? MAIN, args, nodeArgs);
}

/** Starts a TypeScript entry point of the repository (`scripts/docs-preview.ts`) the same way. */
export function startScript(main: string, args: readonly string[], nodeArgs: readonly string[] = []): CliProcess {
  const child = spawn(process.execPath, [...nodeArgs, ...SOURCE_NODE_ARGS, main, ...args], {
    cwd: repoRoot,
    env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  started.push(child.pid!);
  let text = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    output: () => text,
    exited,
    async waitFor(pattern, ms = 60_000) {
      const deadline = performance.now() + ms;
      for (;;) {
        const match = pattern.exec(text);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null || performance.now() > deadline)
          throw new Error(`${path.basename(main)} ${args.join(" ")} printed no ${pattern}:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    rss: () => statusField(child.pid!, "VmRSS"),
    peakRss: () => statusField(child.pid!, "VmHWM"),
  };
}

export const MiB = 1024 * 1024;
