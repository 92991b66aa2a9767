/**
 * Faults: partner API calls made to fail on purpose (an error status, a late answer, a dropped connection, a
 * body cut short), registered through the control API or `--faults` at start. Kept in memory, never in the
 * state file. Each fault's chance is drawn from a generator seeded by the sandbox's seed, so the same seed
 * and the same calls fail the same way every run.
 */
import type { components } from "../../../generated/sandbox.js";
import { utf8Length } from "../../bytes.ts";
import type { Operation } from "../../contract/router.ts";
import { type RandomHolder, randomStateFor, SeededRandom } from "../random.ts";

export type FaultInput = components["schemas"]["CreateFaultRequest"];
export type Fault = components["schemas"]["Fault"];
export type FaultApplied = components["schemas"]["FaultApplied"];

/** A fault that cannot be registered as given; the message names the field. */
export class FaultInputError extends Error {
  override readonly name = "FaultInputError";
}

/** The most faults a sandbox holds at once: each call is checked against every one. */
export const MAX_FAULTS = 1000;
/** The most one account holds (the sandbox-wide faults, made without a key, count as one more account). */
export const MAX_FAULTS_PER_ACCOUNT = 100;
/** The largest fault `body`, as JSON: it is kept, and sent (and logged) with every call the fault strikes. */
export const MAX_FAULT_BODY_BYTES = 64 * 1024;

const EFFECTS = ["status", "drop", "malformed"] as const;
const INPUT_FIELDS = [
  "operationId",
  "method",
  "path",
  "status",
  "body",
  "retryAfter",
  "delayMs",
  "drop",
  "malformed",
  "times",
  "probability",
] as const;

export class FaultBook {
  private faults: Fault[] = [];
  private readonly chance: RandomHolder;
  /** The partner API's operations, the only ones a fault may name. */
  private readonly operations: Operation[];

  private readonly now: () => number;
  constructor(seed: number, operations: readonly Operation[], now: () => number) {
    this.now = now;
    this.chance = { random: randomStateFor(seed, "faults") };
    this.operations = operations.filter((operation) => operation.api === "partner");
  }

  /** Checks what the contract cannot say, and registers the fault; `account` is the owner's fingerprint. */
  add(input: FaultInput, account?: string): Fault {
    if (this.faults.length >= MAX_FAULTS)
      throw new FaultInputError(`the sandbox holds ${MAX_FAULTS} faults, the most it takes: remove some first`);
    let owned = 0;
    for (const fault of this.faults) if (fault.account === account) owned++;
    if (owned >= MAX_FAULTS_PER_ACCOUNT)
      throw new FaultInputError(
        `${account === undefined ? "the sandbox holds" : `account ${account} holds`} ${MAX_FAULTS_PER_ACCOUNT} ${account === undefined ? "sandbox-wide faults" : "faults"}, the most one account may: remove some first`,
      );
    if (input.body !== undefined) {
      const bytes = utf8Length(JSON.stringify(input.body));
      if (bytes > MAX_FAULT_BODY_BYTES)
        throw new FaultInputError(
          `body is ${bytes} bytes as JSON; a fault's body may be at most ${MAX_FAULT_BODY_BYTES} bytes (64 KiB)`,
        );
    }
    const effects = EFFECTS.filter((effect) => input[effect] !== undefined);
    if (effects.length > 1)
      throw new FaultInputError(
        `${effects.join(" and ")} exclude one another: give one (add delayMs to make it late as well)`,
      );
    const matching = this.operations.filter(
      (operation) =>
        (input.operationId === undefined || operation.operationId === input.operationId) &&
        (input.path === undefined || operation.path === input.path) &&
        (input.method === undefined || operation.method === input.method),
    );
    if (matching.length === 0) throw new FaultInputError(this.describeMismatch(input));
    const fault: Fault = {
      id: new SeededRandom(this.chance, this.now).ulid(),
      scope: account === undefined ? "sandbox" : "account",
      ...(account !== undefined ? { account } : {}),
    } as Fault;
    for (const field of INPUT_FIELDS)
      if (input[field] !== undefined) (fault as Record<string, unknown>)[field] = input[field];
    if (input.times !== undefined) fault.remaining = input.times;
    fault.hits = 0;
    fault.createdAt = new Date(this.now()).toISOString();
    this.faults.push(fault);
    return fault;
  }

  private describeMismatch(input: FaultInput): string {
    if (input.operationId !== undefined && !this.operations.some((o) => o.operationId === input.operationId))
      return `operationId ${JSON.stringify(input.operationId)} is not an operation of the partner API (faults apply to the partner API only; e.g. ${this.operations
        .slice(0, 3)
        .map((o) => o.operationId)
        .join(", ")})`;
    if (input.path !== undefined && !this.operations.some((o) => o.path === input.path))
      return `path ${JSON.stringify(input.path)} is not a path template of the partner API (write it as the API description does, e.g. /v1/cards/{cardId}/unfreeze)`;
    const methods = this.operations
      .filter((o) => input.path === undefined || o.path === input.path)
      .filter((o) => input.operationId === undefined || o.operationId === input.operationId)
      .map((o) => `${o.method} ${o.path} (${o.operationId})`);
    return `no partner API operation matches ${[
      input.method,
      input.path,
      input.operationId && `operationId ${input.operationId}`,
    ]
      .filter(Boolean)
      .join(" ")}; candidates: ${methods.join(", ")}`;
  }

  /** Without an owner, every fault; with one, the sandbox-wide faults and the owner's. */
  list(account?: string): Fault[] {
    return account === undefined ? [...this.faults] : this.faults.filter((fault) => visibleTo(fault, account));
  }

  /** Without an owner, removes every fault; with one, the owner's. */
  clear(account?: string): void {
    this.faults = account === undefined ? [] : this.faults.filter((fault) => fault.account !== account);
  }

  /** Removes one fault the caller can see; false when there is none with that id. */
  remove(id: string, account?: string): boolean {
    const index = this.faults.findIndex(
      (fault) => fault.id === id && (account === undefined || visibleTo(fault, account)),
    );
    if (index === -1) return false;
    this.faults.splice(index, 1);
    return true;
  }

  /**
   * The first fault that matches a call of `operation` by the account `account` and wins its draw, counted as a
   * hit (and removed when it has no calls left); undefined when none strikes.
   */
  strike(operation: Operation, account: string | undefined): Fault | undefined {
    if (this.faults.length === 0 || operation.api !== "partner") return undefined;
    for (const fault of this.faults) {
      if (fault.account !== undefined && fault.account !== account) continue;
      if (fault.operationId !== undefined && fault.operationId !== operation.operationId) continue;
      if (fault.path !== undefined && fault.path !== operation.path) continue;
      if (fault.method !== undefined && fault.method !== operation.method) continue;
      if (fault.probability !== undefined && fault.probability < 1) {
        const draw = new SeededRandom(this.chance).next() / 2 ** 32;
        if (draw >= fault.probability) continue;
      }
      fault.hits++;
      if (fault.remaining !== undefined) {
        fault.remaining--;
        if (fault.remaining === 0) this.faults.splice(this.faults.indexOf(fault), 1);
      }
      return fault;
    }
    return undefined;
  }
}

function visibleTo(fault: Fault, account: string): boolean {
  return fault.account === undefined || fault.account === account;
}

/** What a fault did to a call, for the request log. */
export function appliedFault(fault: Fault): FaultApplied {
  const applied: FaultApplied = { id: fault.id };
  if (fault.status !== undefined) applied.status = fault.status;
  if (fault.retryAfter !== undefined) applied.retryAfter = fault.retryAfter;
  if (fault.delayMs !== undefined) applied.delayMs = fault.delayMs;
  if (fault.drop) applied.drop = true;
  if (fault.malformed) applied.malformed = true;
  return applied;
}
