/**
 * Arazzo documents: read (YAML or JSON, bounded), checked against the control contract's `ArazzoDocument` schema
 * (the shape `POST /_sandbox/scenarios` takes), and the documents the devkit ships (openapi/workflows/ here,
 * dist/workflows/ in the package), read once.
 */
import { readdirSync, readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { components } from "../../generated/sandbox.js";
import { DataFileError, parseDataText, readDataFile } from "../common/data-file.ts";
import type { ContractRouter, Operation } from "../contract/router.ts";
import { displayPath, workflowsDir } from "../paths.ts";

type Schemas = components["schemas"];
export type ArazzoDocument = Schemas["ArazzoDocument"];
export type ArazzoWorkflow = Schemas["ArazzoWorkflow"];
export type ArazzoStep = Schemas["ArazzoStep"];
export type ArazzoParameter = Schemas["ArazzoParameter"];
export type ArazzoReusable = Schemas["ArazzoReusable"];
export type ArazzoCriterion = Schemas["ArazzoCriterion"];
export type ArazzoSuccessAction = Schemas["ArazzoSuccessAction"];
export type ArazzoFailureAction = Schemas["ArazzoFailureAction"];
export type ArazzoSourceDescription = Schemas["ArazzoSourceDescription"];

/** A step whose call was answered and whose answer failed its success criteria: the innermost step, where it failed. */
export interface FailedStep {
  workflowId: string;
  stepId: string;
  operationId: string;
  /** The answer's status. */
  status: number;
  /** The success criteria the answer did not meet, as written. */
  criteria: string[];
}

/**
 * A document that cannot run as given, a step that failed, or a run past its bounds; the message names which.
 * `failedStep` is set when a step's answer (in this workflow or a nested one) failed its success criteria, and
 * absent when the run stopped for any other reason (a value missing, a bound, no answer).
 */
export class WorkflowError extends Error {
  override readonly name = "WorkflowError";
  readonly failedStep: FailedStep | undefined;

  constructor(message: string, failedStep?: FailedStep) {
    super(message);
    this.failedStep = failedStep;
  }
}

/** The largest Arazzo file read (the shipped ones are a few dozen KiB). */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

/** The file name shipped documents end with. */
export const ARAZZO_SUFFIX = ".arazzo.yaml";

/** The operation the control contract's `ArazzoDocument` schema is reached through (the body of runScenario). */
function runScenarioOperation(router: ContractRouter): Operation {
  const operation = router.operations.find((candidate) => candidate.operationId === "runScenario");
  if (!operation) throw new Error("the control contract has no runScenario operation");
  return operation;
}

/** `value`, if it is an Arazzo 1.0 document by the control contract's schema; `shownAs` names it in the error. */
export function checkArazzoShape(value: unknown, shownAs: string, router: ContractRouter): ArazzoDocument {
  const issues = router.validateBody(runScenarioOperation(router), "application/json", { arazzo: value });
  if (issues.length > 0)
    throw new WorkflowError(
      `${shownAs} is not an Arazzo 1.0 document: ${issues
        .slice(0, 10)
        .map((issue) => issue.message.replace(/^body\/arazzo\/?/, "").replace(/^ /, "") || "is invalid")
        .join("; ")}${issues.length > 10 ? `; and ${issues.length - 10} more` : ""}`,
    );
  return value as ArazzoDocument;
}

/** Parses an Arazzo document's text (YAML or JSON, a bounded number of aliases) and checks its shape. */
export function parseArazzoText(text: string, shownAs: string, router: ContractRouter): ArazzoDocument {
  if (text.length > MAX_DOCUMENT_BYTES)
    throw new WorkflowError(`${shownAs} is over ${MAX_DOCUMENT_BYTES} bytes, the largest Arazzo document read`);
  let value: unknown;
  try {
    value = parseDataText(text, shownAs);
  } catch (error) {
    if (error instanceof DataFileError) throw new WorkflowError(error.message);
    throw error;
  }
  return checkArazzoShape(value, shownAs, router);
}

/** Reads an Arazzo file (at most MAX_DOCUMENT_BYTES) and checks its shape; errors name the file. */
export async function readArazzoFile(file: string, router: ContractRouter): Promise<ArazzoDocument> {
  const shownAs = `the Arazzo document ${displayPath(file)}`;
  const size = await stat(file).then(
    (found) => found.size,
    () => undefined,
  );
  if (size !== undefined && size > MAX_DOCUMENT_BYTES)
    throw new WorkflowError(
      `${shownAs} is ${size} bytes, over ${MAX_DOCUMENT_BYTES}, the largest Arazzo document read`,
    );
  let value: unknown;
  try {
    value = await readDataFile(file, shownAs);
  } catch (error) {
    if (error instanceof DataFileError) throw new WorkflowError(error.message);
    throw error;
  }
  return checkArazzoShape(value, shownAs, router);
}

/** One shipped document: its file name and content. */
export interface ShippedDocument {
  file: string;
  document: ArazzoDocument;
}

let shipped: Map<string, ShippedDocument> | undefined;

/** The documents the devkit ships, by file name (`sandbox.arazzo.yaml`), read and shape-checked once. */
export function shippedDocuments(router: ContractRouter): ReadonlyMap<string, ShippedDocument> {
  if (!shipped) {
    const found = new Map<string, ShippedDocument>();
    for (const file of readdirSync(workflowsDir)
      .filter((name) => name.endsWith(ARAZZO_SUFFIX))
      .sort()) {
      const text = readFileSync(path.join(workflowsDir, file), "utf8");
      found.set(file, { file, document: parseArazzoText(text, `the shipped workflows ${file}`, router) });
    }
    shipped = found;
  }
  return shipped;
}

/** A shipped workflow and the document that holds it. */
export interface ShippedWorkflow extends ShippedDocument {
  workflow: ArazzoWorkflow;
}

/** Every shipped workflow by its id, in file then document order. */
export function shippedWorkflows(router: ContractRouter): ReadonlyMap<string, ShippedWorkflow> {
  const byId = new Map<string, ShippedWorkflow>();
  for (const { file, document } of shippedDocuments(router).values())
    for (const workflow of document.workflows)
      if (!byId.has(workflow.workflowId)) byId.set(workflow.workflowId, { file, document, workflow });
  return byId;
}

/** The file name at the end of a source description's url (`../workflows/partner-api.arazzo.yaml` → that name). */
export function fileNameOf(url: string): string {
  const withoutQuery = url.replace(/[?#].*$/, "");
  return withoutQuery.slice(withoutQuery.lastIndexOf("/") + 1);
}
