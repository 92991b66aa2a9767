/**
 * verify's stateful phase: the contract's Arazzo workflows (openapi/workflows/), run through the devkit's runner
 * (`runWorkflow`) with a fetch of verify's own, so every answer of every step is judged with every check the moment
 * it arrives, before the workflow's success criteria decide whether it goes on. Nothing here says which operation
 * comes first, what to create or what to read back: the workflows do.
 *
 * - Which workflows run: those of `partner-api.arazzo.yaml` against any target; those that call the sandbox's
 *   control API only where the target serves it; with a read-only run, only workflows whose every call (nested
 *   workflows included) is a read. Each one skipped is reported with why.
 * - What arrives is judged first, always: a step's answer goes through the checks, then to the runner. An answer
 *   that breaks the contract stops its workflow (its values would only make the next step fail for it), and a step
 *   whose success criteria fail stops its workflow; either way the report says where it stopped, the target's own
 *   status and reason, and that what came next was not checked.
 * - Read-back (`ensure_resource_availability`): a step whose success criterion compares its answer with an earlier
 *   step's output (`$response.body#/cards/0/id == $steps.createCard.outputs.cardId`) reads back what the workflow
 *   made or listed; such a criterion failing is that check's failure, on the step's operation.
 * - Webhooks (which Arazzo 1.0.1 cannot wait for): the events a workflow that ran to its end promises are its
 *   `x-webhooks` (data beside the workflow, checked by `npm run lint` against the contract's webhooks), for the
 *   company of its `companyId` output; verify's receiver waits for them (`webhook_delivered`).
 * - Ids for the other phases: every value the contract's links and the workflows' bodies name is taken from the
 *   answers (links.ts), and a workflow's outputs named as a path parameter (`cardHolderId`, `routeId`) are kept
 *   for the company it acted for.
 */

import { type ArazzoWorkflow, shippedDocuments, shippedWorkflows } from "../arazzo/document.ts";
import { ExpressionError } from "../arazzo/expressions.ts";
import { runWorkflow, WorkflowError } from "../arazzo/index.ts";
import { sandboxRouter } from "../contract/documents.ts";
import type { ContractRouter, Operation } from "../contract/router.ts";
import { type CaseContext, isWrite, type RequestParts } from "./cases.ts";
import { curlLine, describeFetchError, fetchBounded } from "./http.ts";
import type { Found, FoundValues, ValueSource } from "./links.ts";
import type { Exchange, Failure, Finding, Probe } from "./types.ts";

/** The shipped document of the sandbox's own journeys (run only against the sandbox). */
const SANDBOX_WORKFLOWS_FILE = "sandbox.arazzo.yaml";

/** An event a workflow that ran to its end promises (its `x-webhooks`), for the company it acted for. */
export interface ExpectedEvent {
  type: string;
  /** Whose receiver it is awaited at: the main account's unless told. */
  account?: "main" | "other";
  /** The company of the workflow's `companyId` output; undefined when it has none (any company then). */
  companyId: string | undefined;
  /** What leads to it, for messages: "workflow onboard-swap-company". */
  after: string;
}

/** What the flow phase needs of verify's run. */
export interface FlowHost {
  readonly router: ContractRouter;
  readonly context: CaseContext;
  readonly sources: readonly ValueSource[];
  readonly main: FoundValues;
  readonly enabled: ReadonlySet<string>;
  readonly signal: AbortSignal;
  readonly writes: boolean;
  readonly hasControl: boolean;
  /** Whether a receiver waits for deliveries (expected events are awaited only then). */
  readonly receiving: boolean;
  /** Path parameter value names (`cardHolderId`): the outputs kept as ids. */
  readonly idNames: ReadonlySet<string>;
  readonly accepted: { probe: Probe; parts: RequestParts; exchange: Exchange }[];
  readonly expected: ExpectedEvent[];
  /** Seconds the run moved the sandbox's shared clock (the workflows' advanceClock steps). */
  clockAdvancedSeconds: number;
  exchange(probe: Probe): Promise<Exchange | undefined>;
  record(
    check: { id: string; level: "error" | "warning" },
    base: Omit<Failure, "check" | "level" | "message">,
    finding: Finding,
  ): void;
  skip(what: string, reason: string): void;
  progress(message: string): void;
}

/** The operation a step names: `createCard`, or `$sourceDescriptions.partner.createCard`. */
function bareId(reference: string): string {
  return reference.slice(reference.lastIndexOf(".") + 1);
}

/** What a workflow's calls need, nested workflows included: a write, the control API. */
function needs(
  workflow: ArazzoWorkflow,
  byId: ReadonlyMap<string, { workflow: ArazzoWorkflow }>,
  operations: ReadonlyMap<string, Operation>,
  depth = 0,
): { writes: boolean; control: boolean } {
  const found = { writes: false, control: false };
  if (depth > 8) return found;
  for (const step of workflow.steps) {
    if (typeof step.operationId === "string") {
      const operation = operations.get(bareId(step.operationId));
      if (!operation) continue;
      if (isWrite(operation)) found.writes = true;
      if (operation.api === "control") found.control = true;
    } else if (typeof step.workflowId === "string") {
      const nested = byId.get(bareId(step.workflowId));
      if (!nested) continue;
      const inner = needs(nested.workflow, byId, operations, depth + 1);
      found.writes ||= inner.writes;
      found.control ||= inner.control;
    }
  }
  return found;
}

/** The path parameters of a URL a step called, as the router that knows its operation reads them; none off its paths. */
function pathParamsOf(router: ContractRouter, method: string, url: URL): Record<string, string> {
  const match = router.match(method, url.pathname);
  return match.kind === "operation" ? match.pathParams : {};
}

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  return Object.fromEntries(new Headers(headers ?? {}));
}

/** The request a step sent, as the parts verify's other phases replay (isolation): no key, its ids vouched for. */
function stepParts(
  path: Record<string, string>,
  url: URL,
  headers: Record<string, string>,
  body: string | undefined,
  label: string,
): RequestParts {
  const parts: RequestParts = {
    path,
    query: Object.fromEntries(url.searchParams),
    headers: {},
    uses: new Map<string, Found>(),
    label,
  };
  const companyId = headers["x-company-id"];
  if (companyId !== undefined) {
    parts.headers["X-Company-Id"] = companyId;
    parts.uses.set("companyId", { name: "companyId", value: companyId, from: label, strong: true });
  }
  for (const [name, value] of Object.entries(path))
    parts.uses.set(name, { name, value, ...(companyId !== undefined ? { companyId } : {}), from: label, strong: true });
  if (body !== undefined) {
    try {
      parts.body = JSON.parse(body);
    } catch {
      parts.rawBody = body;
    }
    if (headers["content-type"] !== undefined) parts.contentType = headers["content-type"];
  }
  return parts;
}

/** An answer handed back to the runner, as the Response it reads. */
function asResponse(exchange: Exchange): Response {
  const { answer } = exchange;
  const headers = new Headers();
  const source = answer.headers as Headers;
  if (typeof source.forEach === "function")
    source.forEach((value, name) => {
      headers.set(name, value);
    });
  const empty = answer.text === "" || answer.status === 204 || answer.status === 205 || answer.status === 304;
  return new Response(empty ? null : answer.text, { status: answer.status, headers });
}

/** The call the runner makes for one step: which workflow, step and operation it is. */
interface StepCall {
  workflowId: string;
  stepId: string;
  operationId: string;
  api: string;
}

type FailedStep = NonNullable<WorkflowError["failedStep"]>;

/**
 * The flow phase's state across the workflows: the contracts' operations, the shipped workflows, and the probe
 * each step sent last. `fetchJudged` is the fetch the runner calls: every partner API answer judged as it arrives.
 */
class FlowRun {
  private readonly controlRouter = sandboxRouter();
  private readonly operations: Map<string, Operation>;
  private readonly partnerOperations: Map<string, Operation>;
  private readonly byId: ReturnType<typeof shippedWorkflows>;
  /** The probe each step sent last, by workflow and step: a failed read-back's curl line. */
  private readonly lastProbe = new Map<string, Probe>();

  private readonly host: FlowHost;
  constructor(host: FlowHost) {
    this.host = host;
    this.operations = new Map(this.controlRouter.operations.map((operation) => [operation.operationId, operation]));
    this.partnerOperations = new Map(
      host.router.operations.filter((operation) => operation.api === "partner").map((op) => [op.operationId, op]),
    );
    this.byId = shippedWorkflows(this.controlRouter);
  }

  async run(): Promise<void> {
    const documents = [...shippedDocuments(this.controlRouter).values()];
    for (const { file, document } of documents)
      for (const workflow of document.workflows) {
        if (this.host.signal.aborted) return;
        const what = `workflow ${workflow.workflowId} (${file})`;
        const skipped = this.whySkipped(file, workflow);
        if (skipped !== undefined) {
          this.host.skip(what, skipped);
          continue;
        }
        await this.runWorkflow(workflow, what);
      }
  }

  /** Why a workflow is not run against this target, or undefined when it runs. */
  private whySkipped(file: string, workflow: ArazzoWorkflow): string | undefined {
    const { host } = this;
    const need = needs(workflow, this.byId, this.operations);
    if (need.control && !host.hasControl) return "needs the sandbox's control API, which the target does not serve";
    // The sandbox's own journeys check what only the sandbox does (a sandbox reading, such as a ledger entry
    // read back as a transaction): never against a target that is not the sandbox.
    if (file === SANDBOX_WORKFLOWS_FILE && !host.hasControl)
      return "a journey of the sandbox's own (its readings, not the API description's): the target is not the sandbox";
    if (need.writes && !host.writes) return "makes changes, and this run is read-only: pass --allow-writes to run it";
    return undefined;
  }

  private async runWorkflow(workflow: ArazzoWorkflow, what: string): Promise<void> {
    const { host } = this;
    try {
      await runWorkflow({
        workflowId: workflow.workflowId,
        baseUrl: host.context.baseUrl,
        inputs: { apiKey: host.context.keys.main },
        fetch: this.fetchJudged,
        signal: host.signal,
        onWorkflowEnd: (ended) => this.workflowEnded(ended),
      });
    } catch (error) {
      if (host.signal.aborted) throw error;
      if (!(error instanceof WorkflowError) && !(error instanceof ExpressionError)) throw error;
      const failed = error instanceof WorkflowError ? error.failedStep : undefined;
      if (failed) this.recordFailedStep(failed);
      host.skip(what, `stopped: ${describeFetchError(error)}; what it would have done next was not checked`);
    }
  }

  /** A workflow ran to its end: its id outputs are kept, and the events it promises awaited. */
  private workflowEnded(ended: { workflowId: string; outputs: Record<string, unknown> }): void {
    const { host } = this;
    const companyId = typeof ended.outputs.companyId === "string" ? ended.outputs.companyId : undefined;
    for (const [name, value] of Object.entries(ended.outputs))
      if (host.idNames.has(name) && typeof value === "string")
        host.main.add({
          name,
          value,
          ...(companyId !== undefined ? { companyId } : {}),
          from: `workflow ${ended.workflowId}`,
          strong: true,
        });
    if (!host.receiving) return;
    for (const type of this.byId.get(ended.workflowId)?.workflow["x-webhooks"] ?? [])
      host.expected.push({ type, companyId, after: `workflow ${ended.workflowId}` });
  }

  /** A partner API step's failed criteria, each recorded with the check that judges it. */
  private recordFailedStep(failed: FailedStep): void {
    const { host } = this;
    const operation = this.partnerOperations.get(failed.operationId);
    if (!operation) return;
    const probe = this.lastProbe.get(`${failed.workflowId}\u0000${failed.stepId}`);
    const base = {
      operationId: operation.operationId,
      method: operation.method,
      path: operation.path,
      status: failed.status,
      label: `workflow ${failed.workflowId}, step ${failed.stepId}`,
      ...(probe ? { curl: curlLine(probe) } : {}),
    };
    // A step's failed criteria, by what judges them: the status is the status checks' (positive_data_acceptance
    // has judged the answer already), a comparison with an earlier step is a read-back, the rest the values
    // the API description states.
    const readBack = failed.criteria.filter((criterion) => criterion.includes("$steps."));
    const statusFailed = failed.criteria.some((criterion) => criterion.includes("$statusCode"));
    const values = failed.criteria.filter(
      (criterion) => !criterion.includes("$steps.") && !criterion.includes("$statusCode"),
    );
    if (readBack.length > 0 && host.enabled.has("ensure_resource_availability"))
      host.record({ id: "ensure_resource_availability", level: "error" }, base, {
        message: `${readBack.join(" and ")} did not hold (answered ${failed.status}): what an earlier step of the workflow made or listed cannot be read back`,
      });
    if (!statusFailed && values.length > 0 && host.enabled.has("workflow_success_criteria"))
      host.record({ id: "workflow_success_criteria", level: "error" }, base, {
        message: `${values.join(" and ")} did not hold (answered ${failed.status}): the workflow's success criteria state what the API description says of this answer`,
      });
  }

  /** Whether a step reads back what an earlier one made or listed: a criterion compares with its outputs. */
  private readsBack(workflowId: string, stepId: string): boolean {
    return (
      this.byId.get(workflowId)?.workflow.steps.find((step) => step.stepId === stepId)?.successCriteria ?? []
    ).some((criterion) => criterion.condition.includes("$steps."));
  }

  /** The runner's fetch: a partner API step is sent as a probe and judged; a control API step is only sent. */
  private readonly fetchJudged = async (url: string, init: RequestInit, call: StepCall): Promise<Response> => {
    const { host } = this;
    const label = `workflow ${call.workflowId}, step ${call.stepId}`;
    const headers = headerRecord(init.headers);
    const body = typeof init.body === "string" ? init.body : undefined;
    const operation = this.partnerOperations.get(call.operationId);
    if (call.api !== "partner" || !operation) return this.controlFetch(url, init, call, headers, body);
    const parsed = new URL(url);
    const probe: Probe = {
      operation,
      operationId: operation.operationId,
      method: init.method ?? operation.method,
      path: operation.path,
      url,
      headers,
      ...(body !== undefined ? { body } : {}),
      kind: this.readsBack(call.workflowId, call.stepId) ? "availability" : "positive",
      label,
      account: "main",
    };
    this.lastProbe.set(`${call.workflowId}\u0000${call.stepId}`, probe);
    const exchange = await host.exchange(probe);
    if (!exchange) throw new Error(host.signal.aborted ? "the run was stopped" : "--max-requests reached: not sent");
    const { answer } = exchange;
    if (answer.error !== undefined) throw new Error(`no answer: ${answer.error}`);
    if (answer.status >= 200 && answer.status < 300 && answer.json !== undefined) {
      // Values are taken only from an answer that conforms: one that breaks the contract is that operation's
      // failure (judged above), and its values would only make the next step fail for it.
      if (host.router.validateResponse(operation, answer.status, answer.json).length > 0)
        throw new Error(
          `its answer (${answer.status}) breaks the contract (reported under ${operation.operationId}), so the workflow does not go on with its values`,
        );
      const companyId = headers["x-company-id"];
      host.main.takeFrom(host.sources, operation.operationId, answer.json, companyId);
      host.accepted.push({
        probe,
        parts: stepParts(pathParamsOf(host.router, probe.method, parsed), parsed, headers, body, label),
        exchange,
      });
    }
    return asResponse(exchange);
  };

  /**
   * A step on the sandbox's control API: it stands in for what the partner API cannot do; not the partner
   * contract's to judge. Its answers' ids are taken as the workflows say.
   */
  private async controlFetch(
    url: string,
    init: RequestInit,
    call: StepCall,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<Response> {
    const { host } = this;
    const { response, text } = await fetchBounded(
      url,
      { method: init.method ?? "GET", headers, ...(body !== undefined ? { body } : {}), redirect: "manual" },
      { signal: host.signal },
    );
    if (text === undefined) throw new Error(`its answer is over the size verify reads`);
    if (response.ok) {
      try {
        const json = JSON.parse(text);
        const path = pathParamsOf(this.controlRouter, init.method ?? "GET", new URL(url));
        host.main.takeFrom(host.sources, call.operationId, json, path.companyId);
        if (call.operationId === "advanceClock") {
          const seconds = (body !== undefined ? (JSON.parse(body) as { seconds?: unknown }) : {}).seconds;
          if (typeof seconds === "number") host.clockAdvancedSeconds += seconds;
        }
      } catch {
        // Not JSON: nothing to take (the workflow's criteria say whether that is a problem).
      }
    }
    return new Response(text === "" || response.status === 204 ? null : text, {
      status: response.status,
      headers: response.headers,
    });
  }
}

/**
 * Runs the contract's workflows against the target, judging every partner API answer as it arrives; says for each
 * workflow skipped or stopped why.
 */
export async function flowPhase(host: FlowHost): Promise<void> {
  await new FlowRun(host).run();
}
