/**
 * The report of a run: what was found, skipped and not exercised, the coverage verdict, and what the run changed
 * on the target. (Rendering it as text, JSON or JUnit is ../report.ts's.)
 */
import { formatDuration } from "../../common/duration.ts";
import type { Operation } from "../../contract/router.ts";
import { isWrite } from "../cases.ts";
import { PHASE_IDS } from "../coverage.ts";
import { describeFetchError } from "../http.ts";
import type { Skip } from "../types.ts";
import { DEFAULT_MAX_REQUESTS, type VerifyReport } from "./options.ts";
import type { Run } from "./run.ts";

export function report(run: Run, operations: Operation[], durationMs: number): VerifyReport {
  const { options, enabled } = run;
  const stopped = run.signal.aborted ? describeFetchError(run.signal.reason) : undefined;
  if (stopped !== undefined) run.skip("the rest of the run", `${stopped}: what was not sent is not judged`);
  for (const operation of operations)
    if (!run.coverage.has(operation.operationId) && !run.skipped.some((skip) => skip.what === operation.operationId))
      run.skip(operation.operationId, "no request was sent (see the skips above)");
  if (run.notSent > 0)
    run.skip(
      "requests",
      `--max-requests ${options.maxRequests ?? DEFAULT_MAX_REQUESTS} reached: ${run.notSent} request(s) not sent`,
    );
  if (!enabled.has("max_response_time"))
    run.skip("max_response_time", "off: pass --max-response-time <ms> to check answer times");
  const exercised = operations.filter((operation) => run.coverage.has(operation.operationId)).length;
  // Coverage is part of the verdict: an operation the options allow, never sent a request that should succeed.
  const allowed = operations.filter((operation) => run.writes || !isWrite(operation));
  const notExercised: Skip[] = allowed
    .filter((operation) => !run.succeeded.has(operation.operationId))
    .map((operation) => ({
      what: operation.operationId,
      reason:
        run.skipped.find((skip) => skip.what === operation.operationId)?.reason ??
        "no request that should succeed was sent",
    }));
  const minCoverage = options.minCoverage ?? 1;
  const share = allowed.length === 0 ? 1 : (allowed.length - notExercised.length) / allowed.length;
  const couldNotCheck = stopped === undefined && share < minCoverage;
  return {
    baseUrl: options.baseUrl,
    seed: run.context.seed,
    sandboxControl: run.control !== undefined,
    summary: {
      operations: exercised,
      operationsInContract: operations.length,
      requests: run.requests,
      failures: run.failures.length,
      warnings: run.warnings.length,
      skipped: run.skipped.length,
      deliveries: run.deliveries,
      durationMs,
    },
    failures: run.failures,
    warnings: run.warnings,
    skipped: run.skipped,
    checks: [...enabled],
    // Keys include event types the implementation sent: no prototype for them to land on.
    coverage: Object.assign(Object.create(null) as Record<string, number>, Object.fromEntries(run.coverage)),
    matrix: Object.assign(
      Object.create(null) as VerifyReport["matrix"],
      Object.fromEntries([...run.matrix].filter(([id]) => operations.some((op) => op.operationId === id))),
    ),
    notExercised,
    exercised: {
      share,
      operations: allowed.length - notExercised.length,
      allowed: allowed.length,
      minCoverage,
    },
    couldNotCheck,
    ...(stopped !== undefined ? { stopped } : {}),
    changes: changesMade(run),
    phases: PHASE_IDS.filter((phase) => options.phases?.has(phase) ?? true),
  };
}

/** What the run changed on the target beyond its requests' own data, and what it undid, for every report format. */
function changesMade(run: Run): string[] {
  const changes: string[] = [];
  if (run.clockAdvancedSeconds > 0)
    changes.push(
      `moved the sandbox's clock ${formatDuration(run.clockAdvancedSeconds * 1000)} forward (the workflows' advanceClock steps); the clock is shared by every account of the sandbox`,
    );
  if (run.registered > 0)
    changes.push(
      run.removed === run.registered
        ? `registered ${run.registered} webhook receiver(s) through the sandbox's control API and removed them`
        : `registered ${run.registered} webhook receiver(s) through the sandbox's control API; ${run.registered - run.removed} could not be removed (see the skips)`,
    );
  return changes;
}
