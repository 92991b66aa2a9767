/** The wrong-method phase: a method each path does not have, answered 405 with Allow. */
import type { Operation } from "../../contract/router.ts";
import { chooseValues, knownObjects, positiveParts, toProbe } from "../cases.ts";
import type { Found } from "../links.ts";
import type { Run } from "./run.ts";

/** A method each path does not have: GET where it has none; otherwise DELETE (a write, so only with --allow-writes). */
export async function wrongMethodPhase(run: Run, operations: Operation[]): Promise<void> {
  if (!run.enabled.has("unsupported_method")) return;
  const byPath = new Map<string, Operation[]>();
  for (const operation of operations) byPath.set(operation.path, [...(byPath.get(operation.path) ?? []), operation]);
  const unsent: string[] = [];
  for (const [path, list] of byPath) {
    const methods = new Set(list.map((operation) => operation.method));
    const method = !methods.has("GET") ? "GET" : !methods.has("DELETE") && run.writes ? "DELETE" : undefined;
    if (!method) {
      unsent.push(path);
      continue;
    }
    const operation = list[0]!;
    const chosen = chooseValues(operation, run.main, run.mainCompanies, run.sources);
    const uses = "uses" in chosen ? chosen.uses : new Map<string, Found>();
    const [valid] = positiveParts(run.context, operation, uses, 0);
    if (!valid) continue;
    const probe = toProbe(
      run.context,
      operation,
      { ...valid, body: undefined, label: `${method} ${path}` },
      "wrong-method",
      "main",
      method,
    );
    probe.operationId = list.map((item) => item.operationId).join("/");
    // Ids the run has seen: then the path exists, and a 404 is no answer to the method.
    if ("uses" in chosen) {
      const known = knownObjects(operation, valid);
      if (known.length > 0) probe.knownObjects = known;
    }
    await run.exchange(probe);
  }
  if (unsent.length > 0)
    run.skip(
      "unsupported_method",
      `not sent on ${unsent.length} path(s) that have GET: their undeclared methods are writes (pass --allow-writes)`,
    );
}
