/**
 * The run context every phase shares: the options, the contract, the checks enabled, the values found so far, the
 * counts and findings, the webhook receiver and the control API, and the one way to send a request (`exchange`,
 * which counts it against the budget and judges its answer).
 */
import { shippedDocuments } from "../../arazzo/document.ts";
import { sandboxRouter } from "../../contract/documents.ts";
import type { ContractRouter, Operation } from "../../contract/router.ts";
import { type CaseContext, type RequestParts, toProbe } from "../cases.ts";
import { CHECKS, type CheckContext, type DeliveryCheck, type ResponseCheck, toFailure } from "../checks.ts";
import type { ExpectedEvent } from "../flows.ts";
import { curlLine, send } from "../http.ts";
import { FoundValues, linkSources, type ValueSource, workflowBodySources } from "../links.ts";
import type { WebhookReceiver } from "../receiver.ts";
import type { Exchange, Failure, Finding, Probe, Skip } from "../types.ts";
import type { Control } from "./control.ts";
import { DEFAULT_MAX_REQUESTS, idNames, type VerifyOptions } from "./options.ts";

export class Run {
  readonly failures: Failure[] = [];
  readonly warnings: Failure[] = [];
  readonly skipped: Skip[] = [];
  readonly coverage = new Map<string, number>();
  readonly matrix = new Map<string, Partial<Record<Probe["kind"], number>>>();
  /** Operations exercised with a request that should succeed (positive, or reading back what was made). */
  readonly succeeded = new Set<string>();
  requests = 0;
  notSent = 0;
  private lastProgress = 0;
  readonly main = new FoundValues();
  readonly other = new FoundValues();
  /** Companies to act for, in the order to try them. */
  readonly mainCompanies: string[] = [];
  readonly otherCompanies: string[] = [];
  /** The first account's positive requests that were answered 2xx. */
  readonly accepted: { probe: Probe; parts: RequestParts; exchange: Exchange }[] = [];
  /** Events the workflows that ran to their end promise (their x-webhooks): awaited at the receiver. */
  readonly expected: ExpectedEvent[] = [];
  /** Companies the positive requests onboarded: the company-scope requests act for them first. */
  readonly onboarded: string[] = [];
  /** Seconds the run moved the sandbox's shared clock (the workflows' advanceClock steps). */
  clockAdvancedSeconds = 0;
  receiver: WebhookReceiver | undefined;
  control: Control | undefined;
  /** The receivers registered through the control API, by account: removed at the end of the run. */
  readonly endpoints: { account: "main" | "other"; id: string }[] = [];
  /** Receivers registered, and removed again, through the control API. */
  registered = 0;
  removed = 0;
  /** Webhook deliveries checked (set once the last phase has judged them). */
  deliveries = 0;
  /** Aborted when the run must stop: its deadline, or the caller's signal. */
  readonly signal: AbortSignal;
  readonly responseChecks: ResponseCheck[];
  readonly deliveryChecks: DeliveryCheck[];
  readonly context: CaseContext;
  readonly checkContext: CheckContext;

  readonly options: VerifyOptions;
  readonly router: ContractRouter;
  readonly document: Record<string, unknown>;
  readonly enabled: ReadonlySet<string>;
  readonly webhookSecrets: ReadonlyMap<"main" | "other", string>;
  readonly sources: readonly ValueSource[];
  constructor(
    options: VerifyOptions,
    router: ContractRouter,
    document: Record<string, unknown>,
    enabled: ReadonlySet<string>,
    webhookSecrets: ReadonlyMap<"main" | "other", string>,
    signal: AbortSignal,
    sources: readonly ValueSource[],
  ) {
    this.options = options;
    this.router = router;
    this.document = document;
    this.enabled = enabled;
    this.webhookSecrets = webhookSecrets;
    this.sources = sources;
    this.signal = signal;
    this.responseChecks = CHECKS.filter(
      (check): check is ResponseCheck => check.target === "response" && enabled.has(check.id),
    );
    this.deliveryChecks = CHECKS.filter(
      (check): check is DeliveryCheck => check.target === "delivery" && enabled.has(check.id),
    );
    this.context = {
      baseUrl: options.baseUrl,
      document,
      router,
      seed: options.seed ?? 1,
      keys: { main: options.apiKey, ...(options.otherApiKey !== undefined ? { other: options.otherApiKey } : {}) },
      sources,
    };
    this.checkContext = {
      router,
      ...(options.maxResponseTimeMs !== undefined ? { maxResponseTimeMs: options.maxResponseTimeMs } : {}),
      webhookSecrets,
    };
  }

  get writes(): boolean {
    return this.options.allowWrites === true;
  }

  get hasControl(): boolean {
    return this.control !== undefined;
  }

  get receiving(): boolean {
    return this.receiver !== undefined;
  }

  /** Path parameter value names (`cardHolderId`): a workflow's outputs of these names are kept as ids. */
  get idNames(): ReadonlySet<string> {
    this.pathNames ??= new Set(idNames(this.document));
    return this.pathNames;
  }
  private pathNames: Set<string> | undefined;

  progress(message: string): void {
    this.options.onProgress?.(message);
  }

  skip(what: string, reason: string): void {
    if (!this.skipped.some((skip) => skip.what === what && skip.reason === reason)) this.skipped.push({ what, reason });
  }

  record(
    check: { id: string; level: "error" | "warning" },
    base: Omit<Failure, "check" | "level" | "message">,
    finding: Finding,
  ): void {
    (check.level === "error" ? this.failures : this.warnings).push(toFailure(check, base, finding));
  }

  /**
   * Sends one probe and, unless `judged` is false, judges its answer with every enabled check; undefined when
   * the request budget is spent.
   */
  async exchange(probe: Probe, judged = true): Promise<Exchange | undefined> {
    if (this.signal.aborted) return undefined;
    if (this.requests >= (this.options.maxRequests ?? DEFAULT_MAX_REQUESTS)) {
      this.notSent++;
      return undefined;
    }
    this.requests++;
    this.coverage.set(probe.operationId, (this.coverage.get(probe.operationId) ?? 0) + 1);
    const row = this.matrix.get(probe.operationId) ?? {};
    this.matrix.set(probe.operationId, row);
    row[probe.kind] = (row[probe.kind] ?? 0) + 1;
    if (probe.kind === "positive" || probe.kind === "availability") this.succeeded.add(probe.operationId);
    const answer = await send(probe, { signal: this.signal });
    const exchange = { probe, answer };
    this.options.onExchange?.(exchange);
    if (judged) this.judge(exchange);
    if (this.requests - this.lastProgress >= 100) {
      this.lastProgress = this.requests;
      this.progress(`  ${this.requests} requests, ${this.failures.length} failure(s) so far`);
    }
    return exchange;
  }

  /** Judges an answer with every enabled check, recording what they find. */
  judge(exchange: Exchange): void {
    const { probe, answer } = exchange;
    for (const check of this.responseChecks)
      for (const finding of check.run(exchange, this.checkContext))
        this.record(
          check,
          {
            operationId: probe.operationId,
            method: probe.method,
            path: probe.path,
            status: answer.error === undefined ? answer.status : null,
            label: probe.label,
            curl: curlLine(probe),
          },
          finding,
        );
  }

  /** Sends the parts as `kind` for `account`; takes the values a 2xx answer of the main account holds. */
  async sendParts(
    operation: Operation,
    parts: RequestParts,
    kind: Probe["kind"],
    account: Probe["account"],
    method?: string,
  ): Promise<Exchange | undefined> {
    const probe = toProbe(this.context, operation, parts, kind, account, method);
    const exchange = await this.exchange(probe);
    // Ids are chased only from an answer that conforms: one that breaks the contract is that operation's failure,
    // and its ids would only make later requests fail for it.
    if (
      exchange &&
      exchange.answer.status >= 200 &&
      exchange.answer.status < 300 &&
      exchange.answer.json !== undefined &&
      this.router.validateResponse(operation, exchange.answer.status, exchange.answer.json).length === 0
    ) {
      const values = account === "other" ? this.other : this.main;
      values.takeFrom(this.sources, operation.operationId, exchange.answer.json, parts.headers["X-Company-Id"]);
    }
    return exchange;
  }
}

/**
 * Where values come from: the contract's links, and the body fields its workflows fill from earlier answers. The
 * workflows are the shipped ones (openapi/workflows/), read against the devkit's own contracts.
 */
export function valueSources(document: Record<string, unknown>, operations: readonly Operation[]): ValueSource[] {
  const documents = [...shippedDocuments(sandboxRouter()).values()].map((shipped) => shipped.document);
  const partner = new Set(operations.map((operation) => operation.operationId));
  return [...linkSources(document, operations), ...workflowBodySources(documents, partner)];
}

/** The company ids listCompanies (or onboardCompany) gave an account, appended in order, each once. */
export function addCompanies(into: string[], values: FoundValues): void {
  const known = new Set(into);
  for (const found of values.get("companyId"))
    if (!known.has(found.value)) {
      known.add(found.value);
      into.push(found.value);
    }
}
