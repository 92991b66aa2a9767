/**
 * `verify`: checks a running implementation of the partner API against the contract. It runs the contract's
 * Arazzo workflows (flows.ts: every step's answer judged as it arrives; read-backs and the webhooks to await come
 * from the workflows), then sends each operation's positive and negative requests (cases.ts) with ids chased along
 * the contract's links and the workflows' values (links.ts), judges every answer with the checks (checks.ts),
 * sends the first account's requests again with the other account's key, and checks every webhook delivery each
 * account's receiver gets. When the target serves the sandbox's control API, the workflows that need it run too,
 * and verify registers its receivers through it (removed again at the end, a stopped run included). Coverage is
 * part of the verdict: an operation the options allow that never got a request that should succeed makes the run
 * fail ("could not check"), unless --min-coverage lowers the bar.
 *
 * This file starts a run and returns its report. The rest lives in verify/: options.ts (the options, the report's
 * shape, the defaults), run.ts (the run context the phases share), phases.ts (the phases, named and in order, each
 * in a module of its own: positive.ts, negative.ts, wrong-method.ts, isolation.ts, other-account.ts, webhooks.ts),
 * control.ts (the sandbox's control API), setup.ts (the run's signal, the reachability check, the receivers'
 * secrets) and report.ts.
 */
import { ContractRouter } from "../contract/router.ts";
import { linkOrder } from "./links.ts";
import { detectControl } from "./verify/control.ts";
import { defaultChecks, loadDefaultDocument, type VerifyOptions, type VerifyReport } from "./verify/options.ts";
import { runPhases } from "./verify/phases.ts";
import { report } from "./verify/report.ts";
import { Run, valueSources } from "./verify/run.ts";
import { preflight, runSignal, webhookSecrets } from "./verify/setup.ts";
import { removeEndpoints } from "./verify/webhooks.ts";

export type { Control } from "./verify/control.ts";
export {
  DEFAULT_MAX_DURATION_MS,
  DEFAULT_MAX_REQUESTS,
  DEFAULT_WEBHOOK_WAIT_MS,
  defaultChecks,
  idNames,
  type VerifyOptions,
  type VerifyReport,
} from "./verify/options.ts";

/** Runs verify against `options.baseUrl`; throws UsageError for bad input (an unreachable URL, a refused key). */
export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  const started = performance.now();
  const document = options.document ?? loadDefaultDocument();
  const router = new ContractRouter([{ api: "partner", document }]);
  const enabled = options.checks ?? defaultChecks();
  const { signal, clear } = runSignal(options);
  let run: Run | undefined;
  try {
    const redirected = await preflight(options, signal);
    const control = await detectControl(options.baseUrl, signal);
    const secrets = webhookSecrets(options, control !== undefined);
    const partnerOperations = router.operations.filter((operation) => operation.api === "partner");
    run = new Run(options, router, document, enabled, secrets, signal, valueSources(document, partnerOperations));
    run.control = control;
    if (redirected !== undefined) run.progress(redirected);
    run.progress(
      `verify ${options.baseUrl}: ${control ? "serves the sandbox's control API (its workflows run too)" : "no sandbox control API"}; ${options.allowWrites ? "writes allowed" : "read-only"}; seed ${run.context.seed}`,
    );
    if (options.companyId !== undefined) {
      run.main.add({ name: "companyId", value: options.companyId, from: "--company-id", strong: true });
      run.mainCompanies.push(options.companyId);
    }
    for (const [name, value] of options.ids ?? [])
      run.main.add({
        name,
        value,
        ...(options.companyId !== undefined ? { companyId: options.companyId } : {}),
        from: "--id",
        strong: true,
      });
    const layers = linkOrder(partnerOperations, run.sources);
    const operations = layers.flat();
    try {
      await runPhases(run, layers);
    } catch (error) {
      // A stopped run reports what it did; anything else is the run's own error.
      if (!signal.aborted) throw error;
    }
    // A stopped run still removes the receivers it registered, before the report says what it left behind.
    if (run.endpoints.length > 0) await removeEndpoints(run);
    return report(run, operations, performance.now() - started);
  } finally {
    clear();
    await run?.receiver?.close();
    if (run && run.endpoints.length > 0) await removeEndpoints(run).catch(() => undefined);
  }
}
