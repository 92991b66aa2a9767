/**
 * The two errors a command's outcome is read from, raised by the commands (cli/) and by the libraries they run
 * (conformance/: an unreachable --base-url is bad input), so a library never imports the CLI for them. The one
 * runner (cli/runner.ts) maps them to exit codes.
 */

/** Bad input (an unknown option, a malformed value, a missing file, an unreachable URL): exit 2. The message names the input. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The job ran and its answer is "no" (a failed gate, lint errors, an undelivered event): exit 1. */
export class JobFailure extends Error {
  override name = "JobFailure";
}
