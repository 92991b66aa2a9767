/** The negative phase: one part of a valid request broken at a time, a header missing, no credentials. */
import type { Operation } from "../../contract/router.ts";
import {
  chooseValues,
  isWrite,
  knownObjects,
  missingHeaderParts,
  negativeParts,
  positiveParts,
  type RequestParts,
  toProbe,
} from "../cases.ts";
import type { Probe } from "../types.ts";
import type { Run } from "./run.ts";

/** One broken part at a time, a missing header, no credentials: each refused. */
export async function negativePhase(run: Run, operation: Operation): Promise<void> {
  const wantNegative = run.enabled.has("negative_data_rejection");
  const wantHeader = run.enabled.has("missing_required_header");
  const wantAuth = run.enabled.has("ignored_auth") && operation.needsApiKey;
  if (!wantNegative && !wantHeader && !wantAuth) return;
  if (isWrite(operation) && !run.writes) return;
  // Built on objects the run has seen: on made-up ids a "not found" would pass whether or not input is validated.
  const chosen = chooseValues(operation, run.main, run.mainCompanies, run.sources);
  if ("missing" in chosen) {
    run.skip(`${operation.operationId} (negative requests)`, `not built on made-up ids: ${chosen.missing}`);
    return;
  }
  const [valid] = positiveParts(run.context, operation, chosen.uses, 0);
  if (!valid) return;
  const withKnown = async (parts: RequestParts, kind: Probe["kind"]) => {
    const probe = toProbe(run.context, operation, parts, kind, "main");
    const known = knownObjects(operation, parts);
    if (known.length > 0) probe.knownObjects = known;
    await run.exchange(probe);
  };
  if (wantNegative)
    for (const parts of negativeParts(run.context, operation, valid)) await withKnown(parts, "negative");
  if (wantHeader) for (const parts of missingHeaderParts(operation, valid)) await withKnown(parts, "missing-header");
  // Without a key only: a made-up key is not sent, since key issuance is not shown (the sandbox makes an account
  // for any key it is given).
  if (wantAuth) await run.sendParts(operation, { ...valid, label: "without X-API-Key" }, "no-auth", "none");
}
