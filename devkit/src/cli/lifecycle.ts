/**
 * How a server command (sandbox, mock, webhooks listen, proxy) ends: on Ctrl-C / SIGTERM / SIGHUP (runner.ts
 * `main`), and when the process that started it is gone. Prism gets the same from its parent through a stdin
 * pipe (../prism.ts); a command started from a shell cannot count on its stdin (a background job's is
 * /dev/null), so it watches the processes instead.
 *
 * Which processes: `npx partner-api sandbox &` runs npm, which runs `sh -c partner-api …`, which runs node;
 * `npm run sandbox` runs npm, `sh` and node the same way. `kill $!` stops npm only (npm passes SIGTERM to its `sh`, which
 * dies without passing it on; SIGKILL passes nothing), and the server, whose parent is still alive, would go on
 * answering. So the command watches its parent and, when a package manager (npm, npx, pnpm, yarn, bun) started
 * it, every process up to and including that one: when any of them is gone, it stops. Without a package
 * manager in its ancestry (node from a shell, a test's child process) it watches its parent alone: a
 * shell that started it in the background may exit first, as a CI step's does, and the server lives on.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { CliIO } from "./runner.ts";

/** How often the watched processes are checked (real milliseconds). */
export const PARENT_POLL_MS = 500;
/** How long a stop after the parent is gone may take before the process exits anyway. */
export const PARENT_GONE_EXIT_MS = 5_000;
/** How far up the ancestry a package manager is looked for. */
const MAX_DEPTH = 8;

/**
 * The parent this process had when this module loaded, at the command's start: a server starts watching only once
 * it listens, and a parent killed in between (a test or a script that stops it as soon as it prints its address)
 * must still count as gone, not leave the process watching the init that took it over.
 */
const STARTED_UNDER = process.ppid;

export interface WatchedProcess {
  pid: number;
  /** Its command line, for the message (as `ps` shows it). */
  command: string;
}

const PACKAGE_MANAGER = /^(npm|npx|pnpm|pnpx|yarn|yarnpkg|bun|bunx)(-cli)?(\.c?js|\.mjs|\.exe|\.cmd)?$/i;

/** Whether a command line is a package manager's: its program, or the script node runs, is npm, npx, … */
export function isPackageManager(command: string): boolean {
  const words = command.trim().split(/\s+/).slice(0, 2);
  return words.some((word) => PACKAGE_MANAGER.test(path.basename(word)));
}

/** A process's parent pid and command line; undefined when it cannot be read (gone, or no /proc nor ps). */
function describeProcess(pid: number): { ppid: number; command: string } | undefined {
  try {
    if (process.platform === "linux") {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0+$/, "").replaceAll("\0", " ");
      return Number.isInteger(ppid) ? { ppid, command } : undefined;
    }
    if (process.platform === "win32") return undefined;
    const line = execFileSync("ps", ["-o", "ppid=", "-o", "command=", "-p", String(pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2_000,
    }).trim();
    const match = /^(\d+)\s+(.*)$/.exec(line);
    return match ? { ppid: Number(match[1]), command: match[2]! } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The processes this one must not outlive: its parent, and when a package manager is among its ancestors,
 * every process up to and including the nearest one.
 */
export function watchedProcesses(): WatchedProcess[] {
  const parent = STARTED_UNDER;
  const chain: WatchedProcess[] = [];
  let pid = parent;
  for (let depth = 0; depth < MAX_DEPTH && pid > 1; depth++) {
    const info = describeProcess(pid);
    if (!info) break;
    chain.push({ pid, command: info.command });
    if (isPackageManager(info.command)) return chain;
    pid = info.ppid;
  }
  return [{ pid: parent, command: chain[0]?.command ?? "" }];
}

function isAlive(pid: number): boolean {
  if (process.platform === "linux") {
    // A process that has ended but was not reaped (a zombie: its parent is an init that reaps nothing, as in
    // a container without one) still answers kill(pid, 0); its state says it is gone.
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, but is another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Calls `onGone` once when a watched process is gone (or this process was handed to another parent since it
 * started); checks every PARENT_POLL_MS on a timer that keeps nothing alive. Returns the function that stops watching.
 */
export function watchParent(
  onGone: (gone: WatchedProcess) => void,
  watched: WatchedProcess[] = watchedProcesses(),
): () => void {
  const parent = STARTED_UNDER;
  const timer = setInterval(() => {
    const gone =
      process.ppid !== parent ? (watched[0] ?? { pid: parent, command: "" }) : watched.find((p) => !isAlive(p.pid));
    if (!gone) return;
    clearInterval(timer);
    onGone(gone);
  }, PARENT_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Resolves when `signal` aborts (Ctrl-C, SIGTERM, SIGHUP) or, with `exitWithParent`, when the process that
 * started this one is gone; then the command stops its server. After the parent is gone, the process exits
 * anyway PARENT_GONE_EXIT_MS later, should the stop hang.
 */
export function untilStopped(signal: AbortSignal, io: CliIO, exitWithParent: boolean): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    let unwatch: () => void = () => {};
    const onAbort = () => {
      unwatch();
      resolve();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (!exitWithParent) return;
    unwatch = watchParent((gone) => {
      signal.removeEventListener("abort", onAbort);
      const what = gone.command === "" ? "" : ` (${gone.command.slice(0, 60)})`;
      io.err(`the process that started this one, pid ${gone.pid}${what}, is gone: stopping…`);
      setTimeout(() => process.exit(process.exitCode ?? 0), PARENT_GONE_EXIT_MS).unref();
      resolve();
    });
  });
}
