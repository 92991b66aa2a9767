/**
 * The Arazzo document model: a document with its sources and references resolved. Resolving tells which API each
 * source is (the partner API or the sandbox's control API, by the operations its steps call), which shipped
 * document each `arazzo` source is (by file name), and each step's operation, and it follows reusable references
 * to components. What resolving finds wrong is an issue of the document; check.ts adds what else the Arazzo schema
 * cannot say, and runner.ts runs the model: both read it, and it imports neither.
 */
import type { ContractRouter, Operation } from "../contract/router.ts";
import {
  type ArazzoDocument,
  type ArazzoFailureAction,
  type ArazzoParameter,
  type ArazzoReusable,
  type ArazzoStep,
  type ArazzoSuccessAction,
  type ArazzoWorkflow,
  fileNameOf,
  type ShippedDocument,
  WorkflowError,
} from "./document.ts";
import { type Expression, parseExpression, pointerTokens } from "./expressions.ts";

/** One thing wrong with a document: where (workflow, step, field) and what. */
export interface ArazzoIssue {
  at: string;
  message: string;
}

/** Bounds on what a document may ask for (retries); the run's own bounds are in run-types.ts. */
export interface CheckLimits {
  /** The longest `retryAfter`, in seconds. */
  maxRetryAfterSeconds: number;
  /** The largest `retryLimit`. */
  maxRetryLimit: number;
}

export const DEFAULT_CHECK_LIMITS: CheckLimits = { maxRetryAfterSeconds: 10, maxRetryLimit: 10 };

/** What documents are resolved against: the two APIs' operations, and the Arazzo documents `arazzo` sources name. */
export interface Catalogue {
  router: ContractRouter;
  /** Arazzo documents by file name (the shipped ones). */
  documents: ReadonlyMap<string, ShippedDocument>;
  limits?: CheckLimits;
}

/** How a document is resolved: the checks to run on it and on each shipped document it names. */
export interface ResolveOptions {
  check?: (resolved: ResolvedDocument) => void;
  resolving?: Map<string, ResolvedDocument>;
  /** The shipped document's file name, when the document is one. */
  file?: string;
}

const isReusable = (value: unknown): value is ArazzoReusable =>
  value !== null && typeof value === "object" && Object.hasOwn(value, "reference");

/** A document with its sources and references resolved, and the issues found on the way. */
export class ResolvedDocument {
  readonly issues: ArazzoIssue[] = [];
  readonly workflows = new Map<string, ArazzoWorkflow>();
  /** Each `openapi` source's API, by source name (a source no step calls through has none). */
  readonly apiOf = new Map<string, Operation["api"]>();
  /** Each step's operation (operation steps only). */
  readonly operations = new Map<ArazzoStep, Operation>();
  /** Each operation step's source, by which a run finds the server to call (`servers`). */
  readonly sourceOf = new Map<ArazzoStep, string>();
  /** The document's source descriptions, by name. */
  readonly sources = new Map<string, ArazzoDocument["sourceDescriptions"][number]>();
  readonly limits: CheckLimits;
  private readonly arazzoSources = new Map<string, ResolvedDocument>();
  private readonly check: ((resolved: ResolvedDocument) => void) | undefined;
  /** Shipped documents resolved or being resolved, by file name: two that name each other resolve once. */
  private readonly resolving: Map<string, ResolvedDocument>;

  readonly document: ArazzoDocument;
  readonly shownAs: string;
  readonly catalogue: Catalogue;

  constructor(document: ArazzoDocument, shownAs: string, catalogue: Catalogue, options: ResolveOptions = {}) {
    this.document = document;
    this.shownAs = shownAs;
    this.catalogue = catalogue;
    this.limits = catalogue.limits ?? DEFAULT_CHECK_LIMITS;
    this.check = options.check;
    this.resolving = options.resolving ?? new Map();
    if (options.file !== undefined) this.resolving.set(options.file, this);
    this.resolve();
    this.check?.(this);
  }

  /** Throws a WorkflowError listing every issue, when there is one. */
  orThrow(): this {
    if (this.issues.length > 0)
      throw new WorkflowError(
        `${this.shownAs} cannot run: ${this.issues
          .slice(0, 20)
          .map((issue) => `${issue.at}: ${issue.message}`)
          .join("; ")}${this.issues.length > 20 ? `; and ${this.issues.length - 20} more` : ""}`,
      );
    return this;
  }

  /** The workflow a step or an action names (`id` here, `$sourceDescriptions.name.id` in an `arazzo` source). */
  workflowOf(reference: string): { resolved: ResolvedDocument; workflow: ArazzoWorkflow } | undefined {
    if (!reference.startsWith("$")) {
      const workflow = this.workflows.get(reference);
      return workflow ? { resolved: this, workflow } : undefined;
    }
    let expression: Expression;
    try {
      expression = parseExpression(reference);
    } catch {
      return undefined;
    }
    if (expression.kind !== "sourceDescriptions" || expression.tail.length !== 1) return undefined;
    const resolved = this.arazzoSources.get(expression.name);
    const workflow = resolved?.workflows.get(expression.tail[0]!);
    return resolved && workflow ? { resolved, workflow } : undefined;
  }

  /** An `arazzo` source resolved, by source name. */
  arazzoSource(name: string): ResolvedDocument | undefined {
    return this.arazzoSources.get(name);
  }

  /** Notes one thing wrong with the document. */
  issue(at: string, message: string): void {
    this.issues.push({ at, message });
  }

  private resolve(): void {
    const { document } = this;
    for (const source of document.sourceDescriptions) {
      if (this.sources.has(source.name)) this.issue(`source ${source.name}`, "two source descriptions have this name");
      this.sources.set(source.name, source);
    }
    for (const source of document.sourceDescriptions) if (source.type === "arazzo") this.resolveArazzoSource(source);
    for (const workflow of document.workflows) {
      if (this.workflows.has(workflow.workflowId))
        this.issue(`workflow ${workflow.workflowId}`, "two workflows have this workflowId");
      this.workflows.set(workflow.workflowId, workflow);
    }
    this.resolveOperations();
  }

  private resolveArazzoSource(source: ArazzoDocument["sourceDescriptions"][number]): void {
    const file = fileNameOf(source.url);
    const known = this.catalogue.documents.get(file);
    if (!known) {
      this.issue(
        `source ${source.name}`,
        `an arazzo source must be a shipped document (${[...this.catalogue.documents.keys()].join(", ") || "none"}); "${source.url}" is none of them`,
      );
      return;
    }
    const resolved =
      this.resolving.get(file) ??
      new ResolvedDocument(known.document, `the shipped workflows ${file}`, this.catalogue, {
        ...(this.check ? { check: this.check } : {}),
        resolving: this.resolving,
        file,
      });
    if (resolved.issues.length > 0)
      this.issue(`source ${source.name}`, `${file} has issues of its own: ${resolved.issues[0]!.message}`);
    this.arazzoSources.set(source.name, resolved);
  }

  /** Finds each operation step's operation, and from them each source's API. */
  private resolveOperations(): void {
    const openapiSources = this.document.sourceDescriptions.filter((source) => source.type !== "arazzo");
    const byApi = new Map<string, Set<Operation["api"]>>();
    for (const workflow of this.document.workflows) {
      for (const step of workflow.steps) {
        const at = `workflow ${workflow.workflowId}, step ${step.stepId}`;
        let found: { source?: string; operation: Operation } | undefined;
        if (step.operationId !== undefined) found = this.findOperationById(step.operationId, openapiSources, at);
        else if (step.operationPath !== undefined) found = this.findOperationByPath(step.operationPath, at);
        if (!found) continue;
        this.operations.set(step, found.operation);
        if (found.source !== undefined) {
          this.sourceOf.set(step, found.source);
          const apis = byApi.get(found.source) ?? new Set();
          apis.add(found.operation.api);
          byApi.set(found.source, apis);
        }
      }
    }
    for (const [source, apis] of byApi) {
      if (apis.size > 1)
        this.issue(
          `source ${source}`,
          "its steps call operations of both the partner API and the sandbox's control API; a source is one of them",
        );
      this.apiOf.set(source, [...apis][0]!);
    }
  }

  private findOperationById(
    reference: string,
    openapiSources: ArazzoDocument["sourceDescriptions"],
    at: string,
  ): { source?: string; operation: Operation } | undefined {
    let source: string | undefined;
    let operationId = reference;
    if (reference.startsWith("$")) {
      let expression: Expression | undefined;
      try {
        expression = parseExpression(reference);
      } catch (error) {
        this.issue(at, (error as Error).message);
        return undefined;
      }
      if (expression.kind !== "sourceDescriptions" || expression.tail.length !== 1) {
        this.issue(
          at,
          `operationId "${reference}" must be an operationId or $sourceDescriptions.<source>.<operationId>`,
        );
        return undefined;
      }
      source = expression.name;
      operationId = expression.tail[0]!;
      const described = this.sources.get(source);
      if (!described) {
        this.issue(
          at,
          `operationId "${reference}" names no source description "${source}" (sources: ${[...this.sources.keys()].join(", ")})`,
        );
        return undefined;
      }
      if (described.type === "arazzo") {
        this.issue(
          at,
          `operationId "${reference}" names the arazzo source "${source}"; operations come from openapi sources`,
        );
        return undefined;
      }
    } else if (openapiSources.length > 1) {
      this.issue(
        at,
        `operationId "${reference}" must name its source as $sourceDescriptions.<source>.${reference}: the document has ${openapiSources.length} OpenAPI sources`,
      );
      return undefined;
    } else source = openapiSources[0]?.name;
    const operation = this.catalogue.router.operations.find((candidate) => candidate.operationId === operationId);
    if (!operation) {
      this.issue(
        at,
        `operationId "${operationId}" is not an operation of the partner API or the sandbox's control API`,
      );
      return undefined;
    }
    return { ...(source !== undefined ? { source } : {}), operation };
  }

  private findOperationByPath(reference: string, at: string): { source: string; operation: Operation } | undefined {
    const match = /^\{\$sourceDescriptions\.([A-Za-z0-9_-]+)\.url\}#(.*)$/.exec(reference);
    if (!match) {
      this.issue(at, `operationPath "${reference}" must be {$sourceDescriptions.<source>.url}#/paths/<path>/<method>`);
      return undefined;
    }
    const [, source = "", pointer = ""] = match;
    if (!this.sources.has(source)) {
      this.issue(at, `operationPath names no source description "${source}"`);
      return undefined;
    }
    let tokens: string[];
    try {
      tokens = pointerTokens(pointer);
    } catch (error) {
      this.issue(at, (error as Error).message);
      return undefined;
    }
    const [paths, path = "", method = ""] = tokens;
    const match2 =
      paths === "paths" && tokens.length === 3 ? this.catalogue.router.match(method.toUpperCase(), path) : undefined;
    const operation = match2?.kind === "operation" && match2.operation.path === path ? match2.operation : undefined;
    if (!operation) {
      this.issue(
        at,
        `operationPath "${reference}" points at no operation of the partner API or the sandbox's control API`,
      );
      return undefined;
    }
    return { source, operation };
  }

  /** The names a workflow's inputs schema declares, or undefined when it declares none (any name goes). */
  inputNames(workflow: ArazzoWorkflow): Set<string> | undefined {
    const schema = this.inputsSchema(workflow);
    const properties = schema?.properties;
    if (properties === null || typeof properties !== "object") return undefined;
    return new Set(Object.keys(properties));
  }

  /** A workflow's inputs schema, its `$ref` to `#/components/inputs/…` followed; undefined when it has none. */
  inputsSchema(workflow: ArazzoWorkflow): Record<string, unknown> | undefined {
    const schema = workflow.inputs;
    const ref = schema?.$ref;
    if (typeof ref !== "string") return schema;
    const name = /^#\/components\/inputs\/(.+)$/.exec(ref)?.[1];
    const inputs = this.document.components?.inputs;
    return name !== undefined && inputs && Object.hasOwn(inputs, name) ? inputs[name] : undefined;
  }

  /** Parameters with their reusable references followed (a reference's `value` replaces the component's). */
  parameterList(list: readonly (ArazzoParameter | ArazzoReusable)[], at: string): ArazzoParameter[] {
    const result: ArazzoParameter[] = [];
    for (const item of list) {
      if (!isReusable(item)) {
        result.push(item);
        continue;
      }
      const component = this.component(item.reference, "parameters", at) as ArazzoParameter | undefined;
      if (component) result.push(Object.hasOwn(item, "value") ? { ...component, value: item.value } : component);
    }
    return result;
  }

  actionList<T extends ArazzoSuccessAction | ArazzoFailureAction>(
    list: readonly (T | ArazzoReusable)[],
    section: "successActions" | "failureActions",
    at: string,
  ): T[] {
    const result: T[] = [];
    for (const item of list) {
      if (!isReusable(item)) result.push(item as T);
      else {
        const component = this.component(item.reference, section, at);
        if (component) result.push(component as T);
      }
    }
    return result;
  }

  private component(
    reference: string,
    section: "parameters" | "successActions" | "failureActions",
    at: string,
  ): unknown {
    let expression: Expression;
    try {
      expression = parseExpression(reference);
    } catch (error) {
      this.issue(at, (error as Error).message);
      return undefined;
    }
    const components = this.document.components?.[section] as Record<string, unknown> | undefined;
    if (
      expression.kind !== "components" ||
      expression.section !== section ||
      !components ||
      !Object.hasOwn(components, expression.name)
    ) {
      this.issue(at, `reference "${reference}" names no ${section} of the document's components`);
      return undefined;
    }
    return components[expression.name];
  }

  outputNames(workflow: ArazzoWorkflow): Set<string> {
    return new Set(Object.keys(workflow.outputs ?? {}));
  }
}
