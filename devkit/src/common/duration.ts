/**
 * How every CLI and report writes and reads a duration: the commands (cli/) and the libraries they run (conformance/,
 * the sandbox's control commands) alike, so neither imports the other for it. Progress steps and exit codes live
 * in the one runner, cli/runner.ts (`step`, `runCommand`).
 */

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${((ms % 60_000) / 1000).toFixed(0)} s`;
}

/** A duration (`90s`, `30m`, `1h30m`, `2d`, `500ms`, or plain seconds) in milliseconds; undefined when not one. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(trimmed)) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
  let ms = 0;
  for (const [, amount, name] of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g))
    ms += Number(amount) * unit[name as keyof typeof unit];
  return ms;
}
