/** The copies of bodies the proxy keeps for validation as they stream past, within their caps. */

/** Bodies up to this size are kept for validation; a larger one passes through unvalidated. */
export const MAX_VALIDATED_BODY_BYTES = 1024 * 1024;
/** Bytes kept for validation by every exchange in flight together; past it, bodies pass through unvalidated. */
export const VALIDATION_BUDGET_BYTES = 64 * 1024 * 1024;

/** Bytes every exchange in flight keeps for validation, together. */
export class Budget {
  private used = 0;
  take(bytes: number): boolean {
    if (this.used + bytes > VALIDATION_BUDGET_BYTES) return false;
    this.used += bytes;
    return true;
  }
  give(bytes: number): void {
    this.used -= bytes;
  }
}

/** A copy of one body as it streams past, kept while it fits under the caps. */
export class Tap {
  private chunks: Buffer[] = [];
  private reserved = 0;
  size = 0;
  /** Why the copy was let go (the body passes unvalidated); undefined while it is whole. */
  dropped: string | undefined;

  private readonly budget: Budget;
  constructor(budget: Budget) {
    this.budget = budget;
  }

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.dropped !== undefined) return;
    if (this.size > MAX_VALIDATED_BODY_BYTES) return this.drop(`over ${MAX_VALIDATED_BODY_BYTES / 1024 / 1024} MiB`);
    if (!this.budget.take(chunk.length))
      return this.drop(`the proxy held ${VALIDATION_BUDGET_BYTES / 1024 / 1024} MiB of bodies in flight`);
    this.reserved += chunk.length;
    this.chunks.push(chunk);
  }

  private drop(reason: string): void {
    this.dropped = reason;
    this.release();
  }

  /** The body, when it was kept whole. */
  body(): Buffer | undefined {
    return this.dropped === undefined ? Buffer.concat(this.chunks) : undefined;
  }

  release(): void {
    this.budget.give(this.reserved);
    this.reserved = 0;
    this.chunks = [];
  }
}
