import { WebhookError } from "./errors.ts";

/**
 * Where the deduper remembers event ids. `add` must be atomic "insert if absent" (Redis `SET key 1 NX EX ttl`,
 * SQL `INSERT … ON CONFLICT DO NOTHING`) so two processes never both claim the same id.
 */
export interface WebhookDedupeStore {
  /** Records `id`; true when it was absent (the caller now owns it), false when it was already there. */
  add(id: string): boolean | Promise<boolean>;
  /** Forgets `id`, so a later delivery of it is processed (used when processing failed). */
  delete(id: string): void | Promise<void>;
}

/** The default store: the most recently used `maxEntries` ids, in memory (one process, lost on restart). */
export function createMemoryDedupeStore(
  options: { maxEntries?: number } = {},
): WebhookDedupeStore & { readonly size: number } {
  const maxEntries = options.maxEntries ?? 10_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new WebhookError(`maxEntries must be a positive integer, got ${String(maxEntries)}`);
  }
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used id first.
  const ids = new Map<string, true>();
  return {
    add(id) {
      const present = ids.delete(id);
      ids.set(id, true);
      if (!present && ids.size > maxEntries) ids.delete(ids.keys().next().value as string);
      return !present;
    },
    delete(id) {
      ids.delete(id);
    },
    get size() {
      return ids.size;
    },
  };
}

export type DedupeOutcome<T> = { duplicate: false; value: T } | { duplicate: true };

export interface WebhookDeduper {
  /**
   * Runs `work` unless `eventId` was already processed (or is being processed): then answers
   * `{ duplicate: true }` without running it. When `work` throws, the id is forgotten and the error
   * rethrown, so the sender's retry of that event is processed.
   */
  process<T>(eventId: string, work: () => T | Promise<T>): Promise<DedupeOutcome<T>>;
}

/** Drops repeated deliveries of an event by its `id`; the source promises neither at-most-once nor order. */
export function createWebhookDeduper(
  options: { store?: WebhookDedupeStore; maxEntries?: number } = {},
): WebhookDeduper {
  if (options.store && options.maxEntries !== undefined) {
    throw new WebhookError("give either store or maxEntries (the size of the default in-memory store), not both");
  }
  const store = options.store ?? createMemoryDedupeStore({ maxEntries: options.maxEntries });
  return {
    async process(eventId, work) {
      if (typeof eventId !== "string" || eventId === "") {
        throw new WebhookError(`eventId must be a non-empty string, got ${JSON.stringify(eventId)}`);
      }
      if (!(await store.add(eventId))) return { duplicate: true };
      try {
        return { duplicate: false, value: await work() };
      } catch (error) {
        await store.delete(eventId);
        throw error;
      }
    },
  };
}
