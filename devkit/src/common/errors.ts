/**
 * The errors a job ends with, whatever runs it: the CLI runner (cli/runner.ts) maps each to its exit code, and
 * the tools it runs (verify, proxy) throw them without knowing of the CLI.
 */

/** Bad input (an unknown option, a malformed value, a missing file): exit 2. The message names the input. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The job ran and its answer is "no" (a failed gate, lint errors, an undelivered event): exit 1. */
export class JobFailure extends Error {
  override name = "JobFailure";
}
