/**
 * A state file written by the release before SQLite loads: test/sandbox/fixtures/state-v4/ holds a snapshot and
 * its journal as that sandbox (format version 4) wrote them (fixtures/make-fixture.ts says how), with what that
 * sandbox answered to reads of everything it held. A sandbox started on a copy migrates it once into an SQLite
 * database in its place, answers the same, keeps the old files beside it, and holds every record in its order.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../devkit/src/sandbox/index.ts";
import { TABLE_NAMES } from "../../devkit/src/sandbox/records.ts";
import { readFormat4 } from "../../devkit/src/sandbox/store/format4.ts";
import { openDatabase, readStateFile, SCHEMA_VERSION } from "../../devkit/src/sandbox/store/sqlite-store.ts";
import { call, readAll } from "./fixtures/read-all.ts";

const fixture = path.resolve("test/sandbox/fixtures/state-v4");
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-migration-"));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** Copies the fixture's state files into a folder of their own; the state file's path. */
async function copied(into: string): Promise<string> {
  const target = path.join(folder, into);
  await mkdir(target, { recursive: true });
  for (const name of await readdir(fixture))
    if (name.startsWith("state.json")) await copyFile(path.join(fixture, name), path.join(target, name));
  return path.join(target, "state.json");
}

describe("a state file of format version 4 (a JSON snapshot and its journal)", () => {
  it("loads: every account, record, pending task and delivery attempt answers as the release that wrote it did", async () => {
    const state = await copied("answers");
    const expected = JSON.parse(await readFile(path.join(fixture, "expected.json"), "utf8"));
    const sandbox = await startSandbox({ port: 0, state, frozen: true });
    try {
      expect(await call(sandbox.url, "x", "GET", "/_sandbox/clock")).toEqual(expected.clock);
      // The test mode's memory of calls (lastCalledAt, lastCaller) was never part of the state file.
      const calls = /"(lastCalledAt|lastCaller)":("[^"]*"|null)/g;
      const withoutCalls = (value: unknown) => JSON.parse(JSON.stringify(value).replace(calls, '"$1":null'));
      expect(withoutCalls(await call(sandbox.url, "x", "GET", "/_sandbox/accounts"))).toEqual(
        withoutCalls(expected.accounts),
      );
      const apiKeys = expected.byKey.map(([apiKey]: [string]) => apiKey);
      expect(apiKeys).toEqual(["migrated-alpha", "migrated-beta", "__proto__"]);
      for (const [apiKey, holds] of expected.byKey) expect(await readAll(sandbox.url, apiKey), apiKey).toEqual(holds);
    } finally {
      await sandbox.stop();
    }
  });

  it(`becomes an SQLite database (schema version ${SCHEMA_VERSION}) holding every record it held, in the same order; the old files are kept beside it`, async () => {
    const state = await copied("records");
    const before = readFormat4(state, "state.json");
    const snapshot = await readFile(state);
    const journal = await readFile(`${state}.journal-2`);
    const sandbox = await startSandbox({ port: 0, state, frozen: true });
    await sandbox.stop();
    // One file at rest (its log checkpointed into it at the stop), the old ones kept beside it.
    expect((await readdir(path.dirname(state))).sort()).toEqual([
      "state.json",
      "state.json.format-4",
      "state.json.format-4.journal-2",
    ]);
    expect((await readFile(state)).subarray(0, 16).toString("latin1")).toBe("SQLite format 3\u0000");
    const db = openDatabase(state, { readOnly: true });
    expect(db.prepare("PRAGMA user_version").get()?.user_version).toBe(SCHEMA_VERSION);
    db.close();
    const after = readStateFile(state, "state.json")!;
    for (const table of TABLE_NAMES) expect(after.records[table].length, table).toBeGreaterThan(0);
    expect(after.records).toEqual(readStateFile(path.join(fixture, "state.json"), "fixture")!.records);
    expect(after.records.cards).toEqual([...(before.records.cards ?? [])]);
    expect({ clock: after.clock, nextTaskId: after.nextTaskId, seed: after.seed }).toEqual({
      clock: before.clock,
      nextTaskId: before.nextTaskId,
      seed: before.seed,
    });
    // Kept byte for byte.
    expect((await readFile(`${state}.format-4`)).equals(snapshot)).toBe(true);
    expect((await readFile(`${state}.format-4.journal-2`)).equals(journal)).toBe(true);
    // A second start reads the database, and migrates nothing.
    const again = await startSandbox({ port: 0, state, frozen: true });
    await again.stop();
    expect(readStateFile(state, "state.json")!.records).toEqual(after.records);
  });
});
