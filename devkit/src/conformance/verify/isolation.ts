/** The isolation phase: the first account's requests again with the other account's key, and its own lists. */
import type { Operation } from "../../contract/router.ts";
import { bodyValues, isCompanyScoped, isWrite, type RequestParts, toProbe } from "../cases.ts";
import { contractExampleIds } from "../example-ids.ts";
import { isObjectId } from "../links.ts";
import { addCompanies, type Run } from "./run.ts";

function emptyParts(label: string): RequestParts {
  return { path: {}, query: {}, headers: {}, uses: new Map(), label };
}

/** The other account: the first one's requests again with its key, its own lists searched for the first one's ids. */
export async function isolationPhase(run: Run, operations: Operation[]): Promise<void> {
  if (!run.enabled.has("account_isolation")) return;
  if (run.options.otherApiKey === undefined) {
    run.skip("account_isolation", "needs --other-api-key (a second account of the same implementation)");
    return;
  }
  // The contract examples' ids are every sandbox account's own (seeded): they prove nothing about isolation.
  const shared = contractExampleIds(run.context.document);
  const foreignIds = new Set([...run.main.objectIds()].filter((id) => !shared.has(id)));
  const listCompanies = operations.find((operation) => operation.operationId === "listCompanies");
  if (listCompanies) {
    const probe = toProbe(
      run.context,
      listCompanies,
      emptyParts("the other account lists its companies"),
      "isolation",
      "other",
    );
    probe.foreignIds = foreignIds;
    const exchange = await run.exchange(probe);
    if (exchange?.answer.json !== undefined)
      run.other.takeFrom(run.sources, "listCompanies", exchange.answer.json, undefined);
    addCompanies(run.otherCompanies, run.other);
  }
  const done = new Set<string>();
  for (const { probe, parts } of run.accepted) {
    const operation = probe.operation;
    if (!operation || done.has(operation.operationId)) continue;
    const named = [...parts.uses.values()].filter(
      (found) => isObjectId(found.name) && found.strong && !shared.has(found.value),
    );
    if (named.length === 0) continue;
    done.add(operation.operationId);
    const again = toProbe(
      run.context,
      operation,
      { ...parts, label: `${operation.operationId} with the other key` },
      "isolation",
      "other",
    );
    again.foreignObject = named.map((found) => `${found.name} ${found.value}`).join(", ");
    again.foreignIds = foreignIds;
    await run.exchange(again);
    const ownCompany = run.otherCompanies[0];
    const pathIds = named.filter((found) => found.name !== "companyId");
    if (isCompanyScoped(operation) && ownCompany !== undefined && pathIds.length > 0) {
      const mixed: RequestParts = {
        ...parts,
        headers: { ...parts.headers, "X-Company-Id": ownCompany },
        label: `${operation.operationId} with the other key, for its own company`,
      };
      const probeMixed = toProbe(run.context, operation, mixed, "isolation", "other");
      probeMixed.foreignObject = pathIds.map((found) => `${found.name} ${found.value}`).join(", ");
      probeMixed.foreignIds = foreignIds;
      const inBody = [...bodyValues(run.sources, operation).values()];
      if (inBody.length > 0 && operation.responses.has(422) && pathIds.every((found) => inBody.includes(found.name)))
        probeMixed.alsoAccepted = {
          statuses: [422],
          reason: "the first account's ids are in the body, and the operation declares 422 for a request it rejects",
        };
      else delete probeMixed.alsoAccepted;
      await run.exchange(probeMixed);
    }
  }
  // The other account's own lists must not hold the first one's ids.
  const ownCompany = run.otherCompanies[0];
  if (ownCompany === undefined) {
    run.skip("account_isolation (lists)", "listCompanies gave the other account no company to list for");
    return;
  }
  for (const operation of operations) {
    if (isWrite(operation) || !isCompanyScoped(operation)) continue;
    if (operation.parameters.some((parameter) => parameter.in === "path")) continue;
    const parts = emptyParts(`the other account's ${operation.operationId}`);
    parts.headers["X-Company-Id"] = ownCompany;
    const probe = toProbe(run.context, operation, parts, "isolation", "other");
    probe.foreignIds = foreignIds;
    await run.exchange(probe);
  }
}
