/** A long-running child process (a server) whose output a test watches: wait for a line, then stop it as Ctrl-C does. */
import type { ChildProcess } from "node:child_process";

export interface Served {
  child: ChildProcess;
  /** Everything it printed (stdout and stderr, the last 200 000 characters). */
  output(): string;
  /** Resolves with the first match of `pattern` in its output; throws when it exits or `ms` pass first. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** Sends the interrupt, then resolves with everything it printed once it exited. */
  interrupt(): Promise<string>;
}

/** Watches `child` (spawned with piped stdout and stderr); `what` names it in errors, `interrupt` sends its Ctrl-C. */
export function watchServed(child: ChildProcess, what: string, interrupt: () => void): Served {
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    output: () => output,
    async waitFor(pattern, ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = output.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline)
          throw new Error(`${what} did not print ${pattern}:\n${output.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async interrupt() {
      interrupt();
      await exited;
      return output;
    },
  };
}
