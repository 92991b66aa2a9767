/**
 * What a flow is, typed from the generated contract types: a handler per operation whose call (parameters and
 * body) and reply (status and body) are the operation's own, so a missing handler, a wrong body field or a
 * wrong response shape is a `tsc` error; the event types `fire` takes with their payloads; the timed task
 * kinds a flow registers. Requests reach a handler already routed and validated against the contract
 * (server.ts), so a handler checks only what the contract cannot say: that an id names something of the
 * calling account, that a BIN is the company's, and the like.
 *
 * And what a flow sees of the sandbox (`FlowEnv`): the store's tables, the clock's reading, ids, `schedule`,
 * `fire` and, for the control operations of test mode, the test mode (`TestModeAccess`). The flows are written
 * against these interfaces, declared here, not against the engine that implements them (engine.ts), which is
 * handed the flows' task runners and seeding by the composition root (../index.ts).
 */

import type { ServerResponse } from "node:http";
import type {
  operations as PartnerOperations,
  paths as PartnerPaths,
  webhooks as PartnerWebhooks,
} from "partner-api-client";
import type { operations as ControlOperations } from "../../../generated/sandbox.js";
import type { ContractRouter, Issue } from "../../contract/router.ts";
import type { SandboxClock } from "../clock.ts";
import type { SeededRandom } from "../random.ts";
import type { ReceiverPolicy } from "../receivers.ts";
import type { AccountRecord, CompanyRecord, EventRecord, TaskBase } from "../records.ts";
import type { Store } from "../store/tables.ts";
import type { FaultBook } from "../testmode/faults.ts";
import type { RequestLog } from "../testmode/log.ts";
import type { ScenarioRunner } from "../testmode/scenarios.ts";
import type { Task, TaskRequest } from "./tasks.ts";

type ValueOf<T> = T[keyof T];

/** The operations a document's `paths` serve (the partner document also holds its webhooks' receive operations). */
type ServedOperation<Paths> = Exclude<
  ValueOf<{ [P in keyof Paths]: ValueOf<Omit<Paths[P], "parameters">> }>,
  undefined
>;

/** Every operationId of the partner API the sandbox serves. */
export type PartnerOperationId = ValueOf<{
  [K in keyof PartnerOperations]: PartnerOperations[K] extends ServedOperation<PartnerPaths> ? K : never;
}>;
/** Every operationId of the sandbox's control API. */
export type ControlOperationId = keyof ControlOperations;

/** The shape every generated operation has. */
interface OperationShape {
  parameters: { path?: unknown; query?: unknown; header?: unknown };
  requestBody?: unknown;
  responses: object;
}

/** One group of parameters, or nothing to add when the operation has none of that kind. */
type Group<T> = [NonNullable<T>] extends [never] ? unknown : NonNullable<T>;

/** Path, query and header parameters by name, coerced to their schema's types. */
export type Params<Op extends OperationShape> = Group<Op["parameters"]["path"]> &
  Group<Op["parameters"]["query"]> &
  Group<Op["parameters"]["header"]>;

type Content<R> = R extends { content: infer C } ? ValueOf<C> : never;

/** The parsed body: the operation's request body schema; undefined when it takes none or it may be left out. */
export type Body<Op extends OperationShape> = undefined extends Op["requestBody"]
  ? Content<NonNullable<Op["requestBody"]>> | undefined
  : Content<Op["requestBody"]>;

type ReplyFor<Status, Response> = Response extends { content: infer C }
  ? "text/html" extends keyof C
    ? { status: Status; html: string }
    : "text/event-stream" extends keyof C
      ? { status: Status; stream: (response: ServerResponse) => void }
      : { status: Status; body: ValueOf<C> }
  : { status: Status };

/** A successful answer: one of the operation's declared 2xx statuses with the body its schema gives. */
export type Reply<Op extends OperationShape> = ValueOf<{
  [S in keyof Op["responses"]]: S extends number
    ? `${S}` extends `2${string}`
      ? ReplyFor<S, Op["responses"][S]>
      : never
    : never;
}>;

/** Any reply, as the server sends it. */
export interface AnyReply {
  status: number;
  body?: unknown;
  /** An HTML page instead of JSON. */
  html?: string;
  /** Headers beyond the content type. */
  headers?: Record<string, string> | undefined;
  /** Server-sent events instead of a body: takes the response over once its headers are sent. */
  stream?: (response: ServerResponse) => void;
}

/** What a handler of `Op` is given. */
export interface Call<Op extends OperationShape = OperationShape> {
  env: FlowEnv;
  testMode: TestModeAccess;
  /** The X-API-Key value, when the request carried one. */
  apiKey?: string;
  params: Params<Op>;
  body: Body<Op>;
}

/** Answers one operation, or throws a SandboxProblem (any status other than the declared successes). */
export type Handler<Op extends OperationShape> = (call: Call<Op>) => Reply<Op> | Promise<Reply<Op>>;

/** A handler for every partner operation: leaving one out, or answering one wrongly, fails to compile. */
export type PartnerHandlers = { [K in PartnerOperationId]: Handler<PartnerOperations[K]> };
/** A handler for every control operation. */
export type ControlHandlers = { [K in ControlOperationId]: Handler<ControlOperations[K]> };

/** Every webhook event type of the partner API. */
export type EventType = keyof PartnerWebhooks;
/** The payload the contract gives an event type. */
export type EventPayload<E extends EventType> = PartnerWebhooks[E]["post"] extends {
  requestBody: { content: { "application/json": { payload: infer P } } };
}
  ? P
  : never;

/** Runs one due task of a kind, with the clock at its due time. */
export type TaskRunner<T> = (env: FlowEnv, task: T) => void | Promise<void>;

/** A flow's task runners, one for each of its kinds (`Kinds` maps a kind to the data its task carries). */
export type TaskRunners<Kinds> = { [K in keyof Kinds]: TaskRunner<TaskBase & { kind: K } & Kinds[K]> };

/** One flow: its partner handlers, its control handlers (kept apart) and its timed task kinds. */
export interface Flow<Kinds = Record<never, never>> {
  /** What the flow covers, for readers and error messages. */
  name: string;
  partner: Partial<PartnerHandlers>;
  control: Partial<ControlHandlers>;
  tasks: TaskRunners<Kinds>;
}

/**
 * Declares a flow with its task kinds named up front (`defineFlow<{ activateCard: { cardId: string } }>()({…})`),
 * keeping the exact set of handlers it has, so the registry can prove every operation has one.
 */
export function defineFlow<Kinds = Record<never, never>>() {
  return <F extends Flow<Kinds>>(flow: F & Exact<F>): F => flow;
}

/** No key beyond a flow's own, and no handler for an operation of the other API (or of none). */
type Exact<F extends { partner: object; control: object }> = Record<Exclude<keyof F, keyof Flow>, never> & {
  partner: Record<Exclude<keyof F["partner"], PartnerOperationId>, never>;
  control: Record<Exclude<keyof F["control"], ControlOperationId>, never>;
};

/** An answer other than success, with a message naming the bad input. */
export class SandboxProblem extends Error {
  override readonly name = "SandboxProblem";
  /** Headers sent with the problem (`Retry-After` with a 429). */
  headers?: Record<string, string>;
  readonly status: number;
  readonly kind: string;
  readonly title: string;
  /** One entry per broken rule, when the request failed the contract's validation. */
  readonly validation?: Issue[];
  constructor(status: number, kind: string, title: string, detail: string, validation?: Issue[]) {
    super(detail);
    this.status = status;
    this.kind = kind;
    this.title = title;
    this.validation = validation;
  }
}

export const notFound = (what: string, id: string) =>
  new SandboxProblem(404, "not-found", "Not found", `${what} ${id} does not exist in this account`);
export const unprocessable = (detail: string) =>
  new SandboxProblem(422, "unprocessable", "Unprocessable Entity", detail);

interface Caller {
  env: FlowEnv;
  apiKey?: string;
}

/** The calling account (seeded on its first use); 401 without an API key. */
export function accountOf(call: Caller): AccountRecord {
  return call.env.account(apiKeyOf(call));
}

export function apiKeyOf(call: Caller): string {
  if (call.apiKey === undefined)
    throw new SandboxProblem(401, "missing-api-key", "Missing API key", "the X-API-Key header is required");
  return call.apiKey;
}

/** The company a partner operation acts for (X-Company-Id): it must be one of the calling account's. */
export function actingCompany(call: Caller & { params: { "X-Company-Id": string } }): CompanyRecord {
  const id = call.params["X-Company-Id"];
  const company = call.env.store.get("companies", accountOf(call).id, id);
  if (!company)
    throw new SandboxProblem(
      403,
      "company-not-in-account",
      "Forbidden",
      `X-Company-Id ${id} is not a company of this account`,
    );
  return company;
}

/** A company named in a control path: 404 unless it is one of the calling account's. */
export function pathCompany(call: Caller & { params: { companyId: string } }): CompanyRecord {
  const id = call.params.companyId;
  const company = call.env.store.get("companies", accountOf(call).id, id);
  if (!company) throw notFound("company", id);
  return company;
}

/**
 * One page of a list: `page` from 1, `limit` items a page (the sandbox's picks when omitted). A `page` or `limit`
 * below 1 is read as 1 (the contract, like the description, gives them no range, so a contract-valid request is
 * answered, and the answer's `pagination` says what was served).
 */
export function pageOf<T>(items: readonly T[], params: { page?: number; limit?: number }, defaultLimit: number) {
  const page = Math.max(1, params.page ?? 1);
  const limit = Math.max(1, params.limit ?? defaultLimit);
  return {
    items: items.slice((page - 1) * limit, page * limit),
    pagination: { currentPage: page, totalPages: Math.ceil(items.length / limit), perPage: limit },
  };
}

/** What the flows' settings are: the sandbox's options that shape what they do. */
export interface FlowSettings {
  /** Clock seconds from createCard until the card is Active. */
  readonly cardIssuingSeconds: number;
  /** Clock seconds from submitKybProfile until company.kyb_status_changed (APPROVED). */
  readonly kybReviewSeconds: number;
  /** A receiver every account gets when it is seeded. */
  readonly webhooks?: { url: string; secret: string } | undefined;
  /** The sandbox's own base URL, for the hosted pages' links. */
  baseUrl(): string;
  /** Where receivers may be (receivers.ts); every address but the sandbox's own and private ones when omitted. */
  readonly receivers?: ReceiverPolicy;
  /** The partner contract served, whose examples every new account holds (default: the one read from files). */
  readonly partnerContract?: Record<string, unknown>;
}

/** What a flow sees of the sandbox: the records, the clock, ids, timed tasks, events. */
export interface FlowEnv {
  /** The records, by table: read them with get and list, change them with put and delete. */
  readonly store: Store;
  readonly clock: SandboxClock;
  readonly settings: FlowSettings;
  /** The clock's reading as an ISO time, the same for everything one call makes (the seeded time while seeding). */
  now(): string;
  /** The same reading in milliseconds. */
  reading(): number;
  /** Runs `job` with `now()` and new ids reading `at` (milliseconds): seeded data's fixed times. */
  dated<T>(at: number, job: () => T): T;
  /** The account of an API key, seeded on its first use. */
  account(apiKey: string): AccountRecord;
  hasAccount(apiKey: string): boolean;
  /** The API key of the account with this fingerprint, among those that have called. */
  apiKeyOf(fingerprint: string): string | undefined;
  /** The account's generator: ids carry the clock's reading, and each draw is kept with the account. */
  random(apiKey: string): SeededRandom;
  /** Puts a task on the clock; its flow's runner runs it when it falls due. */
  schedule(task: TaskRequest): void;
  /** Takes the account's pending tasks that match off the clock (work under way goes on). */
  cancel(apiKey: string, matches: (task: Task) => boolean): void;
  /** The tasks waiting on the clock (not those whose work is under way). */
  pending(): readonly Task[];
  /** Records an event of the account and schedules its deliveries. */
  fire<E extends EventType>(apiKey: string, type: E, payload: EventPayload<E>): EventRecord;
  /**
   * Runs `work` for a task off the due loop (a delivery attempt), so the loop goes on at once; the task stays
   * saved until it settles. `followUpAt`: the earliest clock time a task its outcome schedules can be due.
   */
  inBackground(task: Task, followUpAt: number | undefined, work: (signal: AbortSignal) => Promise<void>): void;
  /** Real milliseconds one delivery attempt may take. */
  readonly webhookTimeoutMs: number;
  /** True while due work is queued or running, or a delivery attempt is under way. */
  readonly busy: boolean;
  /** Moves the clock forward, running what falls due on the way. */
  advance(ms: number): Promise<void>;
  /** Runs what is due by the clock's reading. */
  runDueNow(): Promise<void>;
  /** Back to no accounts and no tasks. */
  reset(): void;
}

/** What the control operations of test mode see of it: faults, the request log, scenarios. */
export interface TestModeAccess {
  readonly faults: FaultBook;
  readonly log: RequestLog;
  readonly scenarios: ScenarioRunner;
  readonly router: ContractRouter;
  /** Each key's latest call with it as X-API-Key (clock time in milliseconds), oldest call first. */
  readonly lastCalls: ReadonlyMap<string, number>;
  /** Faults back to those given at start, the log emptied. */
  reset(): void;
}
