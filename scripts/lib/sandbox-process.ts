/**
 * The one way the tests and the benchmarks start a sandbox in a process of its own: spawn it and read its address
 * from the first machine-readable line it prints on stdout, either the address alone (`partner-api sandbox
 * --print-address`) or one JSON object with a `url` (the scripts that call `startSandbox` themselves print one,
 * with what else they measured; `{"error": …}` when it would not start). Nothing parses the human summary.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface SandboxProcess {
  child: ChildProcess;
  /** The sandbox's base URL, e.g. http://127.0.0.1:4020. */
  url: string;
  port: number;
  /** The rest of the JSON line it printed (a script's own figures), when it printed one. */
  details: Record<string, unknown>;
  /** Real milliseconds from spawning it to its address line. */
  startMs: number;
  /** What it printed on stdout and stderr so far. */
  output(): string;
  /** Resolves once it has exited. */
  exited: Promise<void>;
  /** Sends it `signal` (default SIGKILL: a `kill -9`) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The sandbox printed `{"error": …}` (a refused state file, a bad option) or exited before its address. */
export class SandboxProcessError extends Error {
  override readonly name = "SandboxProcessError";
}

export interface SandboxProcessOptions {
  /** The program (default: this node) and its arguments: a script with its loader, or the CLI with `--print-address`. */
  command?: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Keep its stdin open as a pipe: the scripts here exit when it closes, so a sandbox started by a test or a
   * benchmark ends with it however that ends. Default true.
   */
  holdStdin?: boolean;
  /** How long it may take to print its address. Default 60 s. */
  timeoutMs?: number;
}

/** Starts a sandbox process and resolves once it has printed its address. */
export async function startSandboxProcess(options: SandboxProcessOptions): Promise<SandboxProcess> {
  const started = performance.now();
  const child = spawn(options.command ?? process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.holdStdin === false ? "ignore" : "pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const stop = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      lines.close();
      reject(
        new SandboxProcessError(`the sandbox printed no address within ${options.timeoutMs ?? 60_000} ms:\n${output}`),
      );
    }, options.timeoutMs ?? 60_000);
    lines.on("line", (text) => {
      const address = addressLine(text);
      if (!address) return;
      clearTimeout(timer);
      lines.close();
      resolve(address);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(
        new SandboxProcessError(`the sandbox exited (${code ?? signal}) before it printed its address:\n${output}`),
      );
    });
  }).catch(async (error: Error) => {
    await stop();
    throw error;
  });
  if (typeof line.error === "string") {
    await stop();
    throw new SandboxProcessError(line.error);
  }
  const { url, ...details } = line as { url: string };
  return {
    child,
    url,
    port: Number(new URL(url).port),
    details,
    startMs: performance.now() - started,
    output: () => output,
    exited,
    stop,
  };
}

/** A line that says where a sandbox listens: its address alone, or a JSON object with `url` or `error`. */
export function addressLine(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (/^https?:\/\/\S+$/.test(trimmed)) return { url: trimmed };
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(trimmed) as Record<string, unknown> | null;
    if (parsed && (typeof parsed.url === "string" || typeof parsed.error === "string")) return parsed;
  } catch {
    // Not JSON: not the line.
  }
  return undefined;
}
