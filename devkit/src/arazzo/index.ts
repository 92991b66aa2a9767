/**
 * The devkit's Arazzo runner, for its tools (the sandbox's scenarios, the control CLI's triggers, verify's set-up)
 * and for partners' tests:
 *
 *   runWorkflow({ workflowId: "card-issued", baseUrl: sandbox.url, inputs: { apiKey } })
 *     runs a shipped workflow (openapi/workflows/) against a server over HTTP: the sandbox, or staging for the
 *     workflows of partner-api.arazzo.yaml. Resolves to each workflow's outputs and every call's request and
 *     answer; rejects with a WorkflowError naming the step that failed, or the bound a run passed.
 *   runWorkflow({ document, workflowId, baseUrl, … })
 *     the same for a document of your own (its `arazzo` sources may name the shipped documents by file name).
 *   sandbox.runWorkflow({ workflowId, apiKey })
 *     (partner-api-devkit/sandbox) the same in-process, against a sandbox started in this process.
 *   checkWorkflowDocuments(files, contracts)
 *     what `npm run lint` reports beyond Spectral and Redocly: operations, references and expressions.
 */

import { sandboxRouter } from "../contract/documents.ts";
import { ContractRouter } from "../contract/router.ts";
import { resolveArazzo } from "./check.ts";
import {
  type ArazzoDocument,
  checkArazzoShape,
  type FailedStep,
  parseArazzoText,
  type ShippedDocument,
  shippedDocuments,
  shippedWorkflows,
  WorkflowError,
} from "./document.ts";
import type { ArazzoIssue, Catalogue } from "./model.ts";
import type { CallContext, Fetch, RunLimits, RunTarget, StepCall, WorkflowRun } from "./run-types.ts";
import { runArazzo } from "./runner.ts";

export { DEFAULT_RUN_LIMITS } from "./run-types.ts";
export type {
  ArazzoDocument,
  ArazzoIssue,
  CallContext,
  FailedStep,
  Fetch,
  RunLimits,
  RunTarget,
  StepCall,
  WorkflowRun,
};
export { WorkflowError };

export interface RunWorkflowOptions extends RunTarget {
  /** A shipped workflow's id, or the workflow of `document` to run (every workflow of it in order when left out). */
  workflowId?: string;
  /** A document of your own; the shipped documents when left out. */
  document?: ArazzoDocument;
}

/** A run: each workflow that ended with its outputs, every call, and the outputs of the workflow asked for. */
export interface WorkflowRunResult extends WorkflowRun {
  outputs: Record<string, unknown>;
}

function shippedCatalogue(): Catalogue {
  const router = sandboxRouter();
  return { router, documents: shippedDocuments(router) };
}

/** Runs a workflow against a server over HTTP; see the module's comment. */
export async function runWorkflow(options: RunWorkflowOptions): Promise<WorkflowRunResult> {
  if (!options || typeof options.baseUrl !== "string" || !/^https?:\/\/./.test(options.baseUrl))
    throw new TypeError(`runWorkflow: baseUrl must be an http(s) URL, got ${String(options?.baseUrl)}`);
  const catalogue = shippedCatalogue();
  let document: ArazzoDocument;
  let shownAs: string;
  if (options.document !== undefined) {
    document = checkArazzoShape(options.document, "the document", catalogue.router);
    shownAs = "the document";
  } else {
    const shipped =
      options.workflowId === undefined ? undefined : shippedWorkflows(catalogue.router).get(options.workflowId);
    if (!shipped)
      throw new WorkflowError(
        `runWorkflow: workflowId must be a shipped workflow (${[...shippedWorkflows(catalogue.router).keys()].join(", ")}) or come with a document, got ${JSON.stringify(options.workflowId)}`,
      );
    document = shipped.document;
    shownAs = `the shipped workflows ${shipped.file}`;
  }
  const resolved = resolveArazzo(document, shownAs, catalogue);
  const { document: _document, workflowId, ...target } = options;
  const run = await runArazzo({
    ...target,
    catalogue,
    document: resolved,
    ...(workflowId !== undefined ? { workflowId } : {}),
  });
  const mine = run.workflows.findLast((workflow) => workflow.workflowId === options.workflowId) ?? run.workflows.at(-1);
  return { ...run, outputs: mine?.outputs ?? {} };
}

/** One Arazzo file to check: its name (how `arazzo` sources find it) and its text. */
export interface WorkflowFile {
  file: string;
  text: string;
}

/** An issue with the file it was found in. */
export interface WorkflowFileIssue extends ArazzoIssue {
  file: string;
}

/** A router over two contract documents, made once per pair (its validators compile on first use). */
const routers = new WeakMap<object, WeakMap<object, ContractRouter>>();
function routerFor(contracts: { partner: Record<string, unknown>; control: Record<string, unknown> }): ContractRouter {
  const byControl = routers.get(contracts.partner) ?? new WeakMap<object, ContractRouter>();
  routers.set(contracts.partner, byControl);
  let router = byControl.get(contracts.control);
  if (!router) {
    router = new ContractRouter([
      { api: "control", document: contracts.control },
      { api: "partner", document: contracts.partner },
    ]);
    byControl.set(contracts.control, router);
  }
  return router;
}

/**
 * Checks Arazzo files against the given contracts (bundled documents of the partner API and the control API), as
 * `npm run lint` does: each file's shape, then its operations, references and expressions; `arazzo` sources
 * resolve to the other files by name. Returns every issue (none: the files can run).
 */
export function checkWorkflowDocuments(
  files: readonly WorkflowFile[],
  contracts: { partner: Record<string, unknown>; control: Record<string, unknown> },
): WorkflowFileIssue[] {
  const router = routerFor(contracts);
  const issues: WorkflowFileIssue[] = [];
  const documents = new Map<string, ShippedDocument>();
  for (const { file, text } of files) {
    try {
      documents.set(file, { file, document: parseArazzoText(text, file, router) });
    } catch (error) {
      if (!(error instanceof WorkflowError)) throw error;
      issues.push({ file, at: "document", message: error.message });
    }
  }
  const catalogue: Catalogue = { router, documents };
  for (const { file, document } of documents.values()) {
    for (const issue of resolveArazzo(document, file, catalogue).issues) issues.push({ file, ...issue });
    // A convention of the repository's files, not a condition for running one: verify awaits each event a workflow
    // lists for the company it acted for, which its `companyId` output names.
    for (const workflow of document.workflows)
      if ((workflow["x-webhooks"] ?? []).length > 0 && !Object.hasOwn(workflow.outputs ?? {}, "companyId"))
        issues.push({
          file,
          at: `workflow ${workflow.workflowId}`,
          message:
            "x-webhooks: a workflow that lists events must have a companyId output, the company they are for (verify awaits each event for it)",
        });
  }
  return issues;
}
