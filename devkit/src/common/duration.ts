/**
 * How every CLI and report writes a duration (the CLI runner's steps, `verify`'s reports). Progress steps and
 * exit codes live in the one runner, cli/runner.ts (`step`, `runCommand`).
 */

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${((ms % 60_000) / 1000).toFixed(0)} s`;
}
