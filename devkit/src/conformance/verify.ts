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
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { shippedDocuments } from "../arazzo/document.ts";
import { formatDuration } from "../common/duration.ts";
import { UsageError } from "../common/errors.ts";
import { sandboxRouter } from "../contract/documents.ts";
import { ContractRouter, type Operation } from "../contract/router.ts";
import { inert } from "../inert.ts";
import { contractJsonPath } from "../paths.ts";
import { controlClient, type SandboxControl } from "../sandbox/control-client.ts";
import {
  bodyValues,
  type CaseContext,
  chooseValues,
  isCompanyScoped,
  isWrite,
  knownObjects,
  missingHeaderParts,
  negativeParts,
  positiveParts,
  type RequestParts,
  toProbe,
} from "./cases.ts";
import {
  CHECKS,
  type CheckContext,
  type DeliveryCheck,
  heldIds,
  namedIds,
  type ResponseCheck,
  redirectNote,
  toFailure,
} from "./checks.ts";
import { coveragePhase, PHASE_IDS, type PhaseId } from "./coverage.ts";
import { contractExampleIds } from "./example-ids.ts";
import { type ExpectedEvent, flowPhase } from "./flows.ts";
import { curlLine, describeFetchError, fetchBounded, RunStopped, send } from "./http.ts";
import {
  type Found,
  FoundValues,
  isObjectId,
  linkOrder,
  linkSources,
  type ValueSource,
  valueName,
  workflowBodySources,
} from "./links.ts";
import {
  MAX_DELIVERIES,
  MAX_DELIVERY_BYTES,
  MAX_DELIVERY_BYTES_KEPT,
  startReceiver,
  type WebhookReceiver,
} from "./receiver.ts";
import type { Delivery, Exchange, Failure, Finding, Probe, Skip } from "./types.ts";

export interface VerifyOptions {
  baseUrl: string;
  apiKey: string;
  /** A second account's key: turns on the isolation checks. */
  otherApiKey?: string;
  /** The company to act for first (before those listCompanies lists). */
  companyId?: string;
  /** Without it the run sends no request that could change data. */
  allowWrites?: boolean;
  /** Turns on max_response_time. */
  maxResponseTimeMs?: number;
  /** The checks to judge with (ids); all but max_response_time when omitted. */
  checks?: ReadonlySet<string>;
  /** The same seed sends the same requests. Default 1. */
  seed?: number;
  /** At most this many requests (setup calls to the control API not counted). Default 2000. */
  maxRequests?: number;
  /** Requests generated from the schemas per operation, beside the contract's examples. Default 2. */
  generated?: number;
  /** The signing secret of the receiver registered with the service for --api-key's account (without the sandbox's control API). */
  webhookSecret?: string;
  /** The same for --other-api-key's account: its receiver is `<receiver>/other`. */
  otherWebhookSecret?: string;
  webhookHost?: string;
  webhookPort?: number;
  /** How long to wait for expected webhook deliveries. Default 10 s. */
  webhookWaitMs?: number;
  /** Ids to use, by value name (`cardHolderId`, `routeId`, `walletId`, `transactionId`, `cardId`). */
  ids?: ReadonlyMap<string, string>;
  /** The contract (a bundled OpenAPI document); the devkit's own when omitted. */
  document?: Record<string, unknown>;
  onProgress?: (message: string) => void;
  /** Called with each request and its answer, in the order sent. */
  onExchange?: (exchange: Exchange) => void;
  /** Stops the run (Ctrl-C): what was done is reported, marked as stopped. */
  signal?: AbortSignal;
  /** The whole run's limit: past it, nothing more is sent and the report says so. Default 30 minutes. */
  maxDurationMs?: number;
  /**
   * The share of the operations the options allow (reads; writes too with allowWrites) that must be exercised with
   * a request that should succeed, from 0 to 1; below it the run fails ("could not check"). Default 1.
   */
  minCoverage?: number;
  /** The phases to run (coverage.ts's PHASES); every one when omitted. `coverage` builds on `examples`. */
  phases?: ReadonlySet<PhaseId>;
  /** The coverage phase's requests per operation at most. Default DEFAULT_COVERAGE_PER_OPERATION. */
  coveragePerOperation?: number;
}

export interface VerifyReport {
  baseUrl: string;
  seed: number;
  /** Whether the target served the sandbox's control API. */
  sandboxControl: boolean;
  summary: {
    operations: number;
    operationsInContract: number;
    requests: number;
    failures: number;
    warnings: number;
    skipped: number;
    deliveries: number;
    durationMs: number;
  };
  /** Error-level failures: any of them makes the run fail. */
  failures: Failure[];
  warnings: Failure[];
  skipped: Skip[];
  /** The checks judged with. */
  checks: string[];
  /** Requests sent per operation (webhook event types: deliveries received). */
  coverage: Record<string, number>;
  /** Requests sent per operation and kind (positive, negative, no-auth…): the operations × checks table. */
  matrix: Record<string, Partial<Record<Probe["kind"], number>>>;
  /**
   * Operations the options allow (reads, and writes with --allow-writes) never exercised with a request that should
   * succeed, each with why; when their share is over 1 - minCoverage the run fails ("could not check").
   */
  notExercised: Skip[];
  /** The share of the allowed operations exercised with a request that should succeed, and the bar it had to reach. */
  exercised: { share: number; operations: number; allowed: number; minCoverage: number };
  /** True when too few operations were exercised to stand behind a verdict (exit 1, "could not check"). */
  couldNotCheck: boolean;
  /** Why the run stopped before its end (`--max-duration`, Ctrl-C); absent when it ran to the end. */
  stopped?: string;
  /**
   * What the run changed on the target beyond the data its requests made, and what it undid: the sandbox's shared
   * clock moved by the workflows, verify's webhook receivers registered and removed.
   */
  changes: string[];
  /** The phases that ran (examples, coverage). */
  phases?: PhaseId[];
}

export const DEFAULT_MAX_REQUESTS = 2000;
/**
 * The whole run's default limit: a full run (2,000 requests at most) against a service answering in 0.9 s on
 * average. A server that drips its answers costs a request its 30 s, and so at most this much in all.
 */
export const DEFAULT_MAX_DURATION_MS = 30 * 60_000;
export const DEFAULT_WEBHOOK_WAIT_MS = 10_000;
export function defaultChecks(): Set<string> {
  return new Set(CHECKS.filter((check) => check.id !== "max_response_time").map((check) => check.id));
}

function loadDefaultDocument(): Record<string, unknown> {
  return JSON.parse(readFileSync(contractJsonPath, "utf8")) as Record<string, unknown>;
}

class Run {
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
function valueSources(document: Record<string, unknown>, operations: readonly Operation[]): ValueSource[] {
  const documents = [...shippedDocuments(sandboxRouter()).values()].map((shipped) => shipped.document);
  const partner = new Set(operations.map((operation) => operation.operationId));
  return [...linkSources(document, operations), ...workflowBodySources(documents, partner)];
}

/** The `--id` names: every value a path parameter of the contract takes (a company's is --company-id). */
export function idNames(document: Record<string, unknown> = loadDefaultDocument()): string[] {
  const router = new ContractRouter([{ api: "partner", document }]);
  const names = new Set<string>();
  for (const operation of router.operations)
    for (const parameter of operation.parameters) if (parameter.in === "path") names.add(valueName(parameter));
  return [...names].sort();
}

/** The company ids listCompanies (or onboardCompany) gave an account, appended in order, each once. */
function addCompanies(into: string[], values: FoundValues): void {
  const known = new Set(into);
  for (const found of values.get("companyId"))
    if (!known.has(found.value)) {
      known.add(found.value);
      into.push(found.value);
    }
}

/**
 * The first reachability check: whether the base URL answers is all it asks, so its body is never read. A
 * redirect is not followed; returns a line naming where it pointed, for the run's progress.
 */
async function preflight(options: VerifyOptions, signal: AbortSignal): Promise<string | undefined> {
  try {
    const { response } = await fetchBounded(
      options.baseUrl,
      { method: "GET" },
      { timeoutMs: 10_000, signal, maxBytes: 0 },
    );
    const note = redirectNote(response);
    return note === "" ? undefined : `--base-url ${options.baseUrl} answered ${response.status}${note}`;
  } catch (error) {
    if (signal.aborted) throw error;
    throw new UsageError(
      `--base-url ${options.baseUrl}: cannot reach it (${describeFetchError(error)}); start the implementation or correct the URL`,
    );
  }
}

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

/** The sandbox's control API, through its typed client, each call bounded as every verify request is. */
export interface Control {
  /** The client acting for an account (its X-API-Key), or for none; its calls end with `signal` (the run's). */
  as(apiKey?: string, signal?: AbortSignal): SandboxControl<true>;
}

/** A fetch for the control client that reads the answer within fetchBounded's bounds and the run's signal. */
function boundedFetch(signal: AbortSignal): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = request.body === null ? undefined : await request.text();
    const { response, text } = await fetchBounded(
      request.url,
      { method: request.method, headers: request.headers, ...(body !== undefined ? { body } : {}) },
      { signal },
    );
    if (text === undefined)
      throw new Error(
        `${request.method} ${new URL(request.url).pathname} on the sandbox's control API answered a body over the size verify reads`,
      );
    const copy = new Response(text === "" || response.status === 204 ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(copy, "url", { value: request.url });
    return copy;
  };
}

/** A Control when the target serves the control API (`GET /_sandbox/clock` answers `{ now: <date-time> }`). */
async function detectControl(baseUrl: string, signal: AbortSignal): Promise<Control | undefined> {
  const as = (apiKey?: string, callSignal: AbortSignal = signal) =>
    controlClient(
      baseUrl,
      { ...(apiKey !== undefined ? { apiKey } : {}), throwOnError: true, fetch: boundedFetch(callSignal) },
      sandboxRouter,
    ) as SandboxControl<true>;
  try {
    const { data } = await as().GET("/_sandbox/clock");
    const now = (data as { now?: unknown } | undefined)?.now;
    return typeof now === "string" && !Number.isNaN(Date.parse(now)) ? { as } : undefined;
  } catch {
    // No control API (or no answer in time): the run goes on without it, and stops at its first request if stopped.
    return undefined;
  }
}

/**
 * Why a call to the control API failed, in the target's own words: the status, and the problem document's title and
 * detail in full when it sent one (an ApiError's message cuts a body at 200 characters).
 */
function setupFailure(error: unknown): string {
  const { status, body, method, path } = error as {
    status?: unknown;
    body?: unknown;
    method?: unknown;
    path?: unknown;
  };
  if (typeof status === "number" && typeof method === "string" && typeof path === "string") {
    const problem = body !== null && typeof body === "object" ? (body as { title?: unknown; detail?: unknown }) : {};
    const words = [problem.title, problem.detail].filter((part): part is string => typeof part === "string");
    const said = words.length > 0 ? words.join(": ") : typeof body === "string" && body !== "" ? body : "";
    return inert(`${method} ${path} answered ${status}${said !== "" ? ` (${said.slice(0, 1000)})` : ""}`);
  }
  return error instanceof Error ? error.message : String(error);
}

function emptyParts(label: string): RequestParts {
  return { path: {}, query: {}, headers: {}, uses: new Map(), label };
}

/** One broken part at a time, a missing header, no credentials: each refused. */
async function negativePhase(run: Run, operation: Operation): Promise<void> {
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

/** A method each path does not have: GET where it has none; otherwise DELETE (a write, so only with --allow-writes). */
async function wrongMethodPhase(run: Run, operations: Operation[]): Promise<void> {
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

/** The other account: the first one's requests again with its key, its own lists searched for the first one's ids. */
async function isolationPhase(run: Run, operations: Operation[]): Promise<void> {
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

async function startWebhooks(run: Run): Promise<void> {
  // Deliveries are judged by the delivery checks, awaited by webhook_delivered, and searched for the other
  // account's ids by account_isolation.
  const wanted =
    CHECKS.some((check) => (check.target === "delivery" || check.target === "run") && run.enabled.has(check.id)) ||
    (run.enabled.has("account_isolation") && run.options.otherApiKey !== undefined);
  if (!wanted) return;
  if (!run.writes) {
    run.skip("webhooks", "webhooks follow writes: pass --allow-writes to trigger them");
    return;
  }
  if (!run.control && run.options.webhookSecret === undefined) {
    run.skip(
      "webhooks",
      "needs --webhook-secret (the secret of a receiver you registered with the service) or a target serving the sandbox's control API",
    );
    return;
  }
  run.receiver = await startReceiver({
    ...(run.options.webhookHost !== undefined ? { host: run.options.webhookHost } : {}),
    ...(run.options.webhookPort !== undefined ? { port: run.options.webhookPort } : {}),
  });
  if (run.control) {
    const accounts: ["main" | "other", string][] = [["main", run.options.apiKey]];
    if (run.options.otherApiKey !== undefined) accounts.push(["other", run.options.otherApiKey]);
    try {
      for (const [account, apiKey] of accounts) {
        const { data } = await run.control.as(apiKey).POST("/_sandbox/webhook-endpoints", {
          body: { url: `${run.receiver.url}/${account}`, secret: run.webhookSecrets.get(account)! } as never,
        });
        // The control contract answers the endpoint itself (WebhookEndpoint): its id is what the clean-up removes.
        const id = (data as { id?: unknown } | undefined)?.id;
        if (typeof id === "string") {
          run.endpoints.push({ account, id });
          run.registered++;
        }
      }
    } catch (error) {
      if (run.signal.aborted) throw error;
      run.skip("webhooks", `registering verify's receiver failed: ${setupFailure(error)}`);
      // No receiver is registered for all accounts: nothing is awaited, and what was registered is removed.
      await run.receiver.close();
      run.receiver = undefined;
      await removeEndpoints(run);
      return;
    }
    run.progress(
      `  webhook receiver ${run.receiver.url} registered through the sandbox's control API (each account with its own secret)`,
    );
  } else {
    run.progress(
      `  webhook receiver listening on ${run.receiver.url}: register ${run.receiver.url}/main with the service (signing secret: --webhook-secret)${run.options.otherApiKey !== undefined ? `, and ${run.receiver.url}/other for the other account (--other-webhook-secret)` : ""}`,
    );
  }
}

/** The event the other account's receiver is sent, when onboarding with Swap promises one (the sandbox: kyc_link). */
const OTHER_ACCOUNT_EVENT = "company.kyc_link.issued";

/**
 * An event for the other account too: its receiver was registered with a secret of its own, and a server that
 * signs one account's deliveries with the other's secret fails webhook_signature only on a delivery that
 * reaches the wrongly signed side. The main account's accepted onboardCompany is sent again as the other
 * account (with Swap, whose kycUrl is announced by an event), and that event is awaited at its receiver.
 */
async function otherAccountEvent(run: Run, operations: Operation[]): Promise<void> {
  if (!run.receiver || run.options.otherApiKey === undefined || !run.webhookSecrets.has("other")) return;
  const onboard = operations.find((operation) => operation.operationId === "onboardCompany");
  const accepted = run.accepted.find((item) => item.probe.operation === onboard);
  const body = accepted?.parts.body as { products?: unknown } | undefined;
  if (!onboard || !accepted || body === undefined || typeof body !== "object") {
    run.skip(
      "webhooks (the other account)",
      "no onboardCompany was accepted for the main account to send again as the other: its receiver gets no event of verify's",
    );
    return;
  }
  const products = Array.isArray(body.products) ? body.products : [];
  const parts: RequestParts = {
    ...accepted.parts,
    body: { ...body, products: products.includes("Swap") ? products : [...products, "Swap"] },
    label: "onboardCompany as the other account, so its receiver gets an event",
  };
  const exchange = await run.sendParts(onboard, parts, "positive", "other");
  const companyId = (exchange?.answer.json as { company?: { id?: unknown } } | undefined)?.company?.id;
  if (!exchange || exchange.answer.status < 200 || exchange.answer.status > 299 || typeof companyId !== "string") {
    run.skip(
      "webhooks (the other account)",
      "onboardCompany as the other account was not accepted: its receiver gets no event of verify's",
    );
    return;
  }
  if (webhookTypes(run).has(OTHER_ACCOUNT_EVENT))
    run.expected.push({
      type: OTHER_ACCOUNT_EVENT,
      account: "other",
      companyId,
      after: "onboardCompany as the other account",
    });
}

/** The event types the contract describes (its `webhooks`). */
function webhookTypes(run: Run): Set<string> {
  return new Set(Object.keys((run.document as { webhooks?: Record<string, unknown> }).webhooks ?? {}));
}

/** Removes the receivers this run registered: a run leaves no endpoint behind. */
async function removeEndpoints(run: Run): Promise<void> {
  if (!run.control) return;
  const keys = new Map([
    ["main", run.options.apiKey],
    ["other", run.options.otherApiKey],
  ]);
  for (const endpoint of run.endpoints.splice(0))
    try {
      // Its own bound, not the run's signal: a run stopped by --max-duration or Ctrl-C still cleans up.
      await run.control
        .as(keys.get(endpoint.account), AbortSignal.timeout(10_000))
        .DELETE("/_sandbox/webhook-endpoints/{endpointId}", {
          params: { path: { endpointId: endpoint.id } },
        } as never);
      run.removed++;
    } catch (error) {
      run.skip("clean-up", `the receiver ${endpoint.id} could not be removed: ${setupFailure(error)}`);
    }
}

async function finishWebhooks(run: Run): Promise<number> {
  const receiver = run.receiver;
  if (!receiver) return 0;
  const matches = (event: ExpectedEvent) => (delivery: Delivery) => {
    const json = delivery.json as { type?: unknown; payload?: { companyId?: unknown } } | undefined;
    return (
      delivery.account === (event.account ?? "main") &&
      json?.type === event.type &&
      (event.companyId === undefined || json.payload?.companyId === event.companyId)
    );
  };
  const waitMs = run.options.webhookWaitMs ?? DEFAULT_WEBHOOK_WAIT_MS;
  if (run.expected.length > 0) {
    run.progress(`  waiting up to ${waitMs / 1000} s for ${run.expected.length} expected webhook deliveries`);
    // Each delivery is matched once against the events still awaited: linear in the deliveries.
    const awaited = new Set(run.expected);
    await receiver.waitFor(
      (delivery) => {
        for (const event of awaited) if (matches(event)(delivery)) awaited.delete(event);
        return awaited.size === 0;
      },
      1,
      waitMs,
      run.signal,
    );
  }
  await receiver.close();
  await removeEndpoints(run);
  if (receiver.notKept > 0)
    run.skip(
      "webhooks",
      `${receiver.notKept} delivery(ies) answered but not checked: over ${MAX_DELIVERY_BYTES / 1024 / 1024} MiB each, or past the ${MAX_DELIVERIES} deliveries or ${MAX_DELIVERY_BYTES_KEPT / 1024 / 1024} MiB verify keeps`,
    );
  // Each account's deliveries are searched for the other's ids.
  const shared = contractExampleIds(run.context.document);
  const notShared = (ids: Set<string>) => new Set([...ids].filter((id) => !shared.has(id)));
  const foreign = { main: notShared(run.other.objectIds()), other: notShared(run.main.objectIds()) };
  const isolation = run.enabled.has("account_isolation") && run.options.otherApiKey !== undefined;
  // Every delivery is judged, a redelivery as much as the first copy: one with a bad signature is a failure.
  for (const delivery of receiver.deliveries) {
    const json = delivery.json as { type?: unknown; id?: unknown } | undefined;
    const type = typeof json?.type === "string" ? json.type : "(unknown event)";
    run.coverage.set(type, (run.coverage.get(type) ?? 0) + 1);
    const base = {
      operationId: type,
      method: "POST",
      path: delivery.path,
      status: null,
      label: `a webhook delivery to the ${delivery.account} account's receiver`,
      ...(typeof json?.id === "string" ? { eventId: json.id } : {}),
    };
    for (const check of run.deliveryChecks)
      for (const finding of check.run(delivery, run.checkContext)) run.record(check, base, finding);
    if (isolation) {
      const held = heldIds(delivery.json, foreign[delivery.account]);
      if (held.length > 0)
        run.record({ id: "account_isolation", level: "error" }, base, {
          message: `the ${delivery.account} account's receiver got an event naming ${namedIds(held)}, ${held.length === 1 ? "an object" : "objects"} of the ${delivery.account === "main" ? "other" : "first"} account`,
        });
    }
  }
  if (run.enabled.has("webhook_delivered"))
    for (const event of run.expected)
      if (!receiver.deliveries.some(matches(event)))
        run.record(
          { id: "webhook_delivered", level: "error" },
          { operationId: event.type, method: "POST", path: "(receiver)", status: null, label: event.after },
          {
            message: `no ${event.type}${event.companyId !== undefined ? ` for company ${event.companyId}` : ""} arrived within ${waitMs / 1000} s of ${event.after} (its x-webhooks)`,
          },
        );
  return receiver.deliveries.length;
}

/**
 * The run's signal: aborted, with a RunStopped naming why, when the caller's signal aborts (Ctrl-C) or the run
 * has taken `maxDurationMs`. `clear` lets the deadline go.
 */
function runSignal(options: VerifyOptions): { signal: AbortSignal; clear(): void } {
  const maxDurationMs = options.maxDurationMs ?? DEFAULT_MAX_DURATION_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort(new RunStopped("the run was stopped (Ctrl-C or a signal)"));
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new RunStopped(`the run reached its --max-duration of ${formatDuration(maxDurationMs)}`)),
    maxDurationMs,
  );
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    },
  };
}

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
    // Each account's receiver has a secret of its own, so a delivery signed with the other's is caught.
    const secrets = new Map<"main" | "other", string>();
    const mainSecret =
      options.webhookSecret ?? (control ? `whsec_verify_${randomBytes(12).toString("hex")}` : undefined);
    if (mainSecret !== undefined) secrets.set("main", mainSecret);
    const otherSecret =
      options.otherWebhookSecret ?? (control ? `whsec_verify_${randomBytes(12).toString("hex")}` : undefined);
    if (otherSecret !== undefined && options.otherApiKey !== undefined) secrets.set("other", otherSecret);
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
    let deliveries = 0;
    try {
      deliveries = await runPhases(run, layers);
    } catch (error) {
      // A stopped run reports what it did; anything else is the run's own error.
      if (!signal.aborted) throw error;
    }
    // A stopped run still removes the receivers it registered, before the report says what it left behind.
    if (run.endpoints.length > 0) await removeEndpoints(run);
    return report(run, operations, deliveries, performance.now() - started);
  } finally {
    clear();
    await run?.receiver?.close();
    if (run && run.endpoints.length > 0) await removeEndpoints(run).catch(() => undefined);
  }
}

/** Every phase in order; the deliveries checked. */
async function runPhases(run: Run, layers: Operation[][]): Promise<number> {
  const operations = layers.flat();
  await startWebhooks(run);
  run.progress("• the contract's workflows (openapi/workflows/), every answer of every step judged");
  await flowPhase(run);
  if (run.clockAdvancedSeconds > 0)
    run.progress(
      `  the workflows moved the sandbox's clock ${formatDuration(run.clockAdvancedSeconds * 1000)} forward (its clock is shared by every account)`,
    );
  run.progress("• positive requests: the contract's examples and generated values, ids chased along its links");
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
  run.progress(`• negative requests: one part broken, a header missing, no credentials`);
  for (const operation of operations) await negativePhase(run, operation);
  await wrongMethodPhase(run, operations);
  if (run.options.phases?.has("coverage") ?? true)
    await coveragePhase(run, operations, run.options.coveragePerOperation);
  run.progress(`• account isolation`);
  await isolationPhase(run, operations);
  await otherAccountEvent(run, operations);
  if (run.receiver) run.progress(`• webhooks`);
  return finishWebhooks(run);
}

function report(run: Run, operations: Operation[], deliveries: number, durationMs: number): VerifyReport {
  const { options, enabled } = run;
  const stopped = run.signal.aborted ? describeFetchError(run.signal.reason) : undefined;
  if (stopped !== undefined) run.skip("the rest of the run", `${stopped}: what was not sent is not judged`);
  for (const operation of operations)
    if (!run.coverage.has(operation.operationId) && !run.skipped.some((skip) => skip.what === operation.operationId))
      run.skip(operation.operationId, "no request was sent (see the skips above)");
  if (run.notSent > 0)
    run.skip(
      "requests",
      `--max-requests ${options.maxRequests ?? DEFAULT_MAX_REQUESTS} reached: ${run.notSent} request(s) not sent`,
    );
  if (!enabled.has("max_response_time"))
    run.skip("max_response_time", "off: pass --max-response-time <ms> to check answer times");
  const exercised = operations.filter((operation) => run.coverage.has(operation.operationId)).length;
  // Coverage is part of the verdict: an operation the options allow, never sent a request that should succeed.
  const allowed = operations.filter((operation) => run.writes || !isWrite(operation));
  const notExercised: Skip[] = allowed
    .filter((operation) => !run.succeeded.has(operation.operationId))
    .map((operation) => ({
      what: operation.operationId,
      reason:
        run.skipped.find((skip) => skip.what === operation.operationId)?.reason ??
        "no request that should succeed was sent",
    }));
  const minCoverage = options.minCoverage ?? 1;
  const share = allowed.length === 0 ? 1 : (allowed.length - notExercised.length) / allowed.length;
  const couldNotCheck = stopped === undefined && share < minCoverage;
  return {
    baseUrl: options.baseUrl,
    seed: run.context.seed,
    sandboxControl: run.control !== undefined,
    summary: {
      operations: exercised,
      operationsInContract: operations.length,
      requests: run.requests,
      failures: run.failures.length,
      warnings: run.warnings.length,
      skipped: run.skipped.length,
      deliveries,
      durationMs,
    },
    failures: run.failures,
    warnings: run.warnings,
    skipped: run.skipped,
    checks: [...enabled],
    // Keys include event types the implementation sent: no prototype for them to land on.
    coverage: Object.assign(Object.create(null) as Record<string, number>, Object.fromEntries(run.coverage)),
    matrix: Object.assign(
      Object.create(null) as VerifyReport["matrix"],
      Object.fromEntries([...run.matrix].filter(([id]) => operations.some((op) => op.operationId === id))),
    ),
    notExercised,
    exercised: {
      share,
      operations: allowed.length - notExercised.length,
      allowed: allowed.length,
      minCoverage,
    },
    couldNotCheck,
    ...(stopped !== undefined ? { stopped } : {}),
    changes: changesMade(run),
    phases: PHASE_IDS.filter((phase) => options.phases?.has(phase) ?? true),
  };
}

/** What the run changed on the target beyond its requests' own data, and what it undid, for every report format. */
function changesMade(run: Run): string[] {
  const changes: string[] = [];
  if (run.clockAdvancedSeconds > 0)
    changes.push(
      `moved the sandbox's clock ${formatDuration(run.clockAdvancedSeconds * 1000)} forward (the workflows' advanceClock steps); the clock is shared by every account of the sandbox`,
    );
  if (run.registered > 0)
    changes.push(
      run.removed === run.registered
        ? `registered ${run.registered} webhook receiver(s) through the sandbox's control API and removed them`
        : `registered ${run.registered} webhook receiver(s) through the sandbox's control API; ${run.registered - run.removed} could not be removed (see the skips)`,
    );
  return changes;
}
