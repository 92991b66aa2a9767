/**
 * Test mode: what a partner's tests need beyond the API itself. Faults, the request log and scenarios live
 * at the HTTP front of the sandbox: server.ts opens an `Exchange` per call and tells it where the call got to
 * (routed, body read, answered); the control operations of test mode are a flow of their own (control.ts),
 * handed this test mode with each call.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { utf8Bytes } from "../../bytes.ts";
import type { ContractRouter, Operation } from "../../contract/router.ts";
import { callerFingerprint, headerValue } from "../accounts.ts";
import type { SandboxEngine } from "../engine.ts";
import type { TestModeAccess } from "../flows/flow.ts";
import { MAX_ACCOUNTS, MAX_API_KEY_LENGTH } from "../limits.ts";
import { appliedFault, type Fault, FaultBook, type FaultInput } from "./faults.ts";
import { RequestLog } from "./log.ts";
import { ScenarioRunner } from "./scenarios.ts";

/** Operations that only read the sandbox's own machinery: a test or a dashboard polls them, so they are not logged. */
const UNLOGGED = new Set([
  "listRequests",
  "deleteRequests",
  "streamRequests",
  "getClock",
  "listEvents",
  "listFaults",
  "listScenarios",
  "listAccounts",
  "getAccount",
  "listWebhookEndpoints",
]);

export interface TestModeOptions {
  seed: number;
  /** Calls the request log keeps of each account (and of the callers without one); 0 keeps none. */
  requestLogSize?: number;
  /** Sandbox-wide faults registered at start, and again after each reset. */
  faults?: readonly FaultInput[];
}

/** A fault's answer instead of the operation's: its status, body (a problem naming the fault when none) and headers. */
export interface FaultAnswer {
  status: number;
  body: unknown;
  detail: string;
  headers: Record<string, string> | undefined;
}

/** The call was not answered: a fault dropped its connection, or its client left while a fault held it. */
export const UNANSWERED = Symbol("unanswered");

export class TestMode implements TestModeAccess {
  readonly faults: FaultBook;
  readonly log: RequestLog;
  readonly scenarios: ScenarioRunner;
  private readonly startFaults: readonly FaultInput[];
  /** The calls scenarios make in-process, by their request object, with the scenario's label. */
  private readonly scenarioCalls = new WeakMap<IncomingMessage, string>();

  readonly engine: SandboxEngine;
  readonly router: ContractRouter;
  constructor(engine: SandboxEngine, router: ContractRouter, options: TestModeOptions) {
    this.engine = engine;
    this.router = router;
    this.faults = new FaultBook(options.seed, router.operations, () => engine.clock.now());
    this.log = new RequestLog(router, options.requestLogSize);
    this.scenarios = new ScenarioRunner({
      router,
      clock: engine.clock,
      wake: () => engine.runDueNow(),
      mark: (request, label) => this.scenarioCalls.set(request, label),
    });
    this.startFaults = options.faults ?? [];
    for (const fault of this.startFaults) this.faults.add(fault);
  }

  /** Starts following one call. */
  open(request: IncomingMessage): Exchange {
    return new Exchange(this, request);
  }

  /** The scenario that made a call, when a scenario did: only its own request objects carry one, never a header. */
  scenarioOf(request: IncomingMessage): string | undefined {
    return this.scenarioCalls.get(request);
  }

  /**
   * Each key's latest call made with it as X-API-Key (clock time, milliseconds), oldest call first:
   * `listAccounts`' lastCalledAt and lastCaller, so the dashboard opens on the account that called last. In memory
   * only; a reset empties it. Bounded: past 2 × MAX_ACCOUNTS keys, those of no account are dropped.
   */
  readonly lastCalls = new Map<string, number>();
  /** The key of the latest call: a call with it again only moves its time (it is last already). */
  private lastKey: string | undefined;

  noteCall(apiKey: string, atMs: number): void {
    if (apiKey.length > MAX_API_KEY_LENGTH) return;
    if (apiKey === this.lastKey && this.lastCalls.has(apiKey)) {
      this.lastCalls.set(apiKey, atMs);
      return;
    }
    this.lastKey = apiKey;
    this.lastCalls.delete(apiKey);
    this.lastCalls.set(apiKey, atMs);
    if (this.lastCalls.size > 2 * MAX_ACCOUNTS)
      for (const key of this.lastCalls.keys()) if (!this.engine.hasAccount(key)) this.lastCalls.delete(key);
  }

  /** Faults back to those given at start, the log emptied, the last calls forgotten (with `resetSandbox`). */
  reset(): void {
    this.faults.clear();
    for (const fault of this.startFaults) this.faults.add(fault);
    this.log.clear();
    this.lastCalls.clear();
  }
}

/** One call on its way through the HTTP front, logged once answered. */
export class Exchange {
  private readonly started = performance.now();
  private readonly atMs: number;
  private operation: Operation | undefined;
  private account: string | null = null;
  private body: Uint8Array | undefined;
  private fault: Fault | undefined;
  private readonly scenario: string | undefined;
  private logged = true;

  private readonly mode: TestMode;
  private readonly request: IncomingMessage;
  constructor(mode: TestMode, request: IncomingMessage) {
    this.mode = mode;
    this.request = request;
    this.atMs = mode.engine.clock.now();
    this.scenario = mode.scenarioOf(request);
    this.account = callerFingerprint(request.headers);
    // A call with the account's own key: the dashboard opens on the account that called last.
    const apiKey = headerValue(request.headers, "x-api-key");
    if (apiKey !== undefined) mode.noteCall(apiKey, this.atMs);
  }

  routed(operation: Operation): void {
    this.operation = operation;
    this.logged = !UNLOGGED.has(operation.operationId);
  }

  received(body: Uint8Array): void {
    this.body = body;
  }

  /**
   * Applies the fault that strikes this call, if one does: waits its delay, then answers for it (`FaultAnswer`),
   * drops the connection (`UNANSWERED`), or lets the call run (a delay alone, or a body to cut short). Undefined,
   * not a promise, when no fault strikes: most calls go on without waiting a turn.
   */
  strike(response: ServerResponse): Promise<FaultAnswer | typeof UNANSWERED | undefined> | undefined {
    if (!this.operation || this.scenario !== undefined) return undefined;
    const fault = this.mode.faults.strike(this.operation, this.account ?? undefined);
    if (!fault) return undefined;
    return this.apply(fault, response);
  }

  private async apply(fault: Fault, response: ServerResponse): Promise<FaultAnswer | typeof UNANSWERED | undefined> {
    if (!this.operation) return undefined;
    this.fault = fault;
    if (fault.delayMs) await pause(fault.delayMs, response);
    if (response.destroyed || fault.drop) {
      this.record(null, {}, undefined);
      this.request.socket.destroy();
      return UNANSWERED;
    }
    if (fault.status === undefined) return undefined;
    const detail = `fault ${fault.id} answered ${fault.status} to ${this.operation.operationId}`;
    return {
      status: fault.status,
      body: fault.body,
      detail,
      headers: fault.retryAfter === undefined ? undefined : { "retry-after": String(fault.retryAfter) },
    };
  }

  /** Records the answer about to be sent; returns its text, cut short when a fault asks for a malformed body. */
  answer(status: number, headers: OutgoingHttpHeaders, text: string | undefined): string | undefined {
    if (!(this.fault?.malformed && text)) {
      this.record(status, headers, text);
      return text;
    }
    const sent = text.slice(0, Math.ceil(text.length / 2) - 1) || "{";
    // Logged as bytes of its own: the cut string is a slice that would hold on to the whole answer.
    this.record(status, headers, utf8Bytes(sent));
    return sent;
  }

  private record(status: number | null, headers: OutgoingHttpHeaders, text: Uint8Array | string | undefined): void {
    if (!this.logged) return;
    const target = this.request.url ?? "/";
    const mark = target.indexOf("?");
    this.mode.log.record({
      atMs: this.atMs,
      account: this.account,
      operation: this.operation,
      method: this.request.method ?? "GET",
      path: mark === -1 ? target : target.slice(0, mark),
      query: mark === -1 ? "" : target.slice(mark + 1),
      scenario: this.scenario,
      requestHeaders: this.request.headers,
      requestBody: this.body,
      status,
      responseHeaders: headers,
      responseText: text,
      durationMs: performance.now() - this.started,
      fault: this.fault ? appliedFault(this.fault) : null,
    });
  }
}

/** Waits `ms`, or less when the client goes away meanwhile. */
function pause(ms: number, response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      response.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    response.once("close", done);
  });
}
