/** The positive phase: each operation's examples and generated values, ids chased along the contract's links. */
import { UsageError } from "../../common/errors.ts";
import type { Operation } from "../../contract/router.ts";
import { chooseValues, isWrite, positiveParts } from "../cases.ts";
import { addCompanies, type Run } from "./run.ts";

async function positivePhase(run: Run, operation: Operation): Promise<void> {
  if (isWrite(operation) && !run.writes) {
    run.skip(operation.operationId, "a write, and this run is read-only: pass --allow-writes to send it");
    return;
  }
  const companies = operation.operationId === "onboardCompany" ? [] : run.mainCompanies;
  const chosen = chooseValues(operation, run.main, companies, run.sources);
  if ("missing" in chosen) {
    run.skip(operation.operationId, chosen.missing);
    return;
  }
  const generated = run.options.generated ?? 2;
  const list = positiveParts(
    run.context,
    operation,
    chosen.uses,
    isWrite(operation) ? Math.min(1, generated) : generated,
  );
  for (const parts of list) {
    const exchange = await run.sendParts(operation, parts, "positive", "main");
    if (!exchange || exchange.answer.status < 200 || exchange.answer.status > 299) continue;
    run.accepted.push({ probe: exchange.probe, parts, exchange });
    if (operation.operationId === "onboardCompany") {
      const id = (exchange.answer.json as { company?: { id?: unknown } } | undefined)?.company?.id;
      if (typeof id === "string") run.onboarded.push(id);
    }
  }
  if (run.sources.some((source) => source.operationId === operation.operationId && source.value === "companyId")) {
    // Companies this run made come first: writes then land in them, not in data that was there before.
    const made = run.onboarded;
    const madeIds = new Set(made);
    const rest = run.mainCompanies.filter((id) => !madeIds.has(id));
    run.mainCompanies.length = 0;
    for (const id of made) run.mainCompanies.push(id);
    for (const id of rest) run.mainCompanies.push(id);
    addCompanies(run.mainCompanies, run.main);
  }
}

/** Every operation in link order; a key refused on the first read is bad input, not a verdict. */
export async function positiveRequests(run: Run, layers: readonly Operation[][]): Promise<void> {
  for (const [index, layer] of layers.entries()) {
    for (const operation of layer) {
      await positivePhase(run, operation);
      // A key refused on the first read (what needs no id) is bad input, not a verdict on the implementation.
      if (index === 0 && operation === layer[0] && !run.accepted.some((item) => item.probe.operation === operation)) {
        const first = run.failures.find((failure) => failure.operationId === operation.operationId);
        if (first?.status === 401 || first?.status === 403)
          throw new UsageError(
            `--api-key was refused: ${operation.operationId} answered ${first.status}; pass a key the implementation knows`,
          );
      }
    }
  }
}
