/**
 * Where the state lives: in memory, or (with a state file) on disk before each mutating response is sent.
 * A write is a whole JSON snapshot put in place atomically (temporary file, fsync, rename, fsync of the
 * folder), so a `kill -9` leaves either the old file or the new one. Writes asked for while one is running
 * share the next one (group commit), so 100 parallel calls cost a few writes, not 100.
 */
import { open, readFile, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { type SandboxState, STATE_FORMAT, STATE_VERSION } from "./state.ts";

export class SandboxStateError extends Error {
  override readonly name = "SandboxStateError";
}

/** Reads a state file; undefined when there is none yet. Refuses a corrupt file or one of a newer format. */
export async function readStateFile(file: string, shownAs: string): Promise<SandboxState | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new SandboxStateError(`sandbox state file ${shownAs} cannot be read: ${(error as Error).message}`);
  }
  const refuse = (why: string) =>
    new SandboxStateError(
      `sandbox state file ${shownAs} ${why}; it was left untouched (move it away or pass another --state)`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw refuse(`is corrupt (not JSON: ${(error as Error).message})`);
  }
  const state = parsed as Partial<SandboxState> | null;
  if (!state || typeof state !== "object" || state.format !== STATE_FORMAT)
    throw refuse(`is corrupt (no "format": "${STATE_FORMAT}")`);
  if (typeof state.version !== "number" || !Number.isInteger(state.version))
    throw refuse(`is corrupt ("version" is not an integer)`);
  if (state.version > STATE_VERSION)
    throw refuse(
      `was written by a newer sandbox (format version ${state.version}; this one reads up to ${STATE_VERSION})`,
    );
  if (
    typeof state.seed !== "number" ||
    typeof state.clock !== "string" ||
    Number.isNaN(Date.parse(state.clock)) ||
    typeof state.nextTaskId !== "number" ||
    !Array.isArray(state.tasks) ||
    !state.accounts ||
    typeof state.accounts !== "object"
  )
    throw refuse("is corrupt (seed, clock, nextTaskId, tasks or accounts missing or of the wrong type)");
  return state as SandboxState;
}

export interface StateStore {
  /** Resolves once every change made before the call is durable. */
  commit(): Promise<void>;
  /** Waits for writes in flight. */
  flush(): Promise<void>;
}

export const memoryStore: StateStore = {
  commit: () => Promise.resolve(),
  flush: () => Promise.resolve(),
};

export function fileStore(file: string, snapshot: () => SandboxState): StateStore {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const temporary = `${file}.${process.pid}.tmp`;

  async function write(): Promise<void> {
    const text = JSON.stringify(snapshot());
    const handle = await open(temporary, "w");
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    // The rename is durable only once the folder's entry is on disk. Windows cannot open a folder for
    // this (EISDIR, EPERM); there the rename itself is what NTFS journals.
    const folder = await open(path.dirname(file), "r").catch((error: NodeJS.ErrnoException) => {
      if (process.platform === "win32") return undefined;
      throw error;
    });
    try {
      await folder?.sync();
    } finally {
      await folder?.close();
    }
  }

  function start(): Promise<void> {
    const current = write().finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  }

  return {
    commit() {
      if (!running) return start();
      // A snapshot taken now could miss nothing, but one is being written: the next write carries this change.
      if (!queued) {
        queued = running
          .catch(() => undefined)
          .then(() => {
            queued = undefined;
            return start();
          });
      }
      return queued;
    },
    async flush() {
      await queued?.catch(() => undefined);
      await running?.catch(() => undefined);
    },
  };
}
