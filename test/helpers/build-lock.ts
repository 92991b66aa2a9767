/**
 * One build of the client's dist/ at a time across vitest workers. `npm pack` runs prepack, which empties
 * dist/ and compiles it again; the tests that pack the client (test/consumer, test/devkit) run in parallel
 * workers, and without this one would delete the other's build while it packs or reads it.
 */

import { createHash } from "node:crypto";
import { mkdir, rmdir, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../../scripts/lib/paths.ts";

const LOCK = path.join(
  os.tmpdir(),
  `partner-api-dist-lock-${createHash("sha256").update(repoRoot).digest("hex").slice(0, 12)}`,
);
/** A lock older than this was left by a killed run. */
const STALE_MS = 10 * 60_000;

/** Waits for the lock (mkdir is atomic), then returns its release. */
export async function lockDist(timeoutMs = 5 * 60_000): Promise<() => Promise<void>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await mkdir(LOCK);
      return () => rmdir(LOCK).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = await stat(LOCK).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_MS) await rmdir(LOCK).catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`dist/ stayed locked (${LOCK}) for ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
