/** Git in a scratch repository of a test: a fixed author, the output as text, a failure thrown with git's words. */
import { spawnSync } from "node:child_process";

export function gitIn(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", ["-c", "user.email=test@example.invalid", "-c", "user.name=test", ...args], {
    cwd,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}
