/**
 * What a flow is, typed from the generated contract types: a handler per operation whose call (parameters and
 * body) and reply (status and body) are the operation's own, so a missing handler, a wrong body field or a
 * wrong response shape is a `tsc` error; the event types `fire` takes with their payloads; the timed task
 * kinds a flow registers. Requests reach a handler already routed and validated against the contract
 * (server.ts), so a handler checks only what the contract cannot say: that an id names something of the
 * calling account, that a BIN is the company's, and the like.
 */

import type { ServerResponse } from "node:http";
import type {
  operations as PartnerOperations,
  paths as PartnerPaths,
  webhooks as PartnerWebhooks,
} from "partner-api-client";
import type { operations as ControlOperations } from "../../../generated/sandbox.js";
import type { Issue } from "../contract/router.ts";
import type { SandboxEngine } from "./engine.ts";
import type { AccountState, CompanyRecord } from "./state.ts";

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
  engine: SandboxEngine;
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

/** What every timed task carries: the order it was scheduled in, when it is due and whose it is. */
export interface TaskBase {
  id: number;
  dueAt: number;
  apiKey: string;
}

/** Runs one due task of a kind, with the clock at its due time. */
export type TaskRunner<Task> = (engine: SandboxEngine, task: Task) => void | Promise<void>;

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
  constructor(
    readonly status: number,
    readonly kind: string,
    readonly title: string,
    detail: string,
    /** One entry per broken rule, when the request failed the contract's validation. */
    readonly validation?: Issue[],
  ) {
    super(detail);
  }
}

export const notFound = (what: string, id: string) =>
  new SandboxProblem(404, "not-found", "Not found", `${what} ${id} does not exist in this account`);
export const unprocessable = (detail: string) =>
  new SandboxProblem(422, "unprocessable", "Unprocessable Entity", detail);

interface Caller {
  engine: SandboxEngine;
  apiKey?: string;
}

/** The calling account (seeded on its first use); 401 without an API key. */
export function accountOf(call: Caller): AccountState {
  return call.engine.account(apiKeyOf(call));
}

export function apiKeyOf(call: Caller): string {
  if (call.apiKey === undefined)
    throw new SandboxProblem(401, "missing-api-key", "Missing API key", "the X-API-Key header is required");
  return call.apiKey;
}

/** The company a partner operation acts for (X-Company-Id): it must be one of the calling account's. */
export function actingCompany(call: Caller & { params: { "X-Company-Id": string } }): CompanyRecord {
  const id = call.params["X-Company-Id"];
  const company = call.engine.company(accountOf(call), id);
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
  const company = call.engine.company(accountOf(call), id);
  if (!company) throw notFound("company", id);
  return company;
}

/** One page of a list: `page` from 1, `limit` items a page (the sandbox's picks when omitted). */
export function pageOf<T>(items: T[], params: { page?: number; limit?: number }, defaultLimit: number) {
  const page = Math.max(1, params.page ?? 1);
  const limit = Math.max(1, params.limit ?? defaultLimit);
  return {
    items: items.slice((page - 1) * limit, page * limit),
    pagination: { currentPage: page, totalPages: Math.ceil(items.length / limit), perPage: limit },
  };
}
