/**
 * Console output shared by every CLI: what was done, and how long it took.
 * Messages go to stderr when they are progress, to stdout when they are the result.
 */

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${((ms % 60_000) / 1000).toFixed(0)} s`;
}

/** Runs one named step, printing its name and duration; rethrows its error after saying it failed. */
export async function step<T>(name: string, run: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  process.stderr.write(`• ${name}…\n`);
  try {
    const result = await run();
    process.stderr.write(`✓ ${name} (${formatDuration(performance.now() - started)})\n`);
    return result;
  } catch (error) {
    process.stderr.write(`✗ ${name} failed after ${formatDuration(performance.now() - started)}\n`);
    throw error;
  }
}

/** Prints an error for a CLI user (no stack for expected failures) and sets a failing exit code. */
export function fail(message: string, exitCode = 1): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(exitCode);
}
