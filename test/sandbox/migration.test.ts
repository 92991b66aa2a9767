/**
 * A state file written by an earlier release loads: test/sandbox/fixtures/state-v2/ and state-v3/ hold a snapshot
 * and its journal as the sandboxes of format versions 2 and 3 wrote them (state-v2/make-fixture.ts says how; the
 * version 3 files were made by the same script on commit bbde5da, the release before format version 4), with what
 * that sandbox answered to reads of everything it held. A sandbox started on a copy answers the same, and its
 * first snapshot (the current format) holds every record the old files held, in their order.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../devkit/src/sandbox/index.ts";
import { TABLE_NAMES } from "../../devkit/src/sandbox/records.ts";
import { loadStateFiles, STATE_VERSION } from "../../devkit/src/sandbox/store/load.ts";
import { call, readAll } from "./fixtures/state-v2/read-all.ts";

const fixtureV2 = path.resolve("test/sandbox/fixtures/state-v2");
const fixtureV3 = path.resolve("test/sandbox/fixtures/state-v3");
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-migration-"));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** Copies a fixture's state files into a folder of their own; the state file's path. */
async function copied(fixture: string, into: string): Promise<string> {
  const target = path.join(folder, into);
  await mkdir(target, { recursive: true });
  for (const name of await readdir(fixture))
    if (name.startsWith("state.json")) await copyFile(path.join(fixture, name), path.join(target, name));
  return path.join(target, "state.json");
}

describe.each([
  { version: 2, fixture: fixtureV2, what: "snapshot and journal by path" },
  { version: 3, fixture: fixtureV3, what: "each table a list of whole records, and its journal" },
])("a state file of format version $version ($what)", ({ version, fixture }) => {
  it("loads: every account, record, pending task and delivery attempt answers as the release that wrote it did", async () => {
    const state = await copied(fixture, `answers-${version}`);
    expect(loadStateFiles(state, "state.json")!.version).toBe(version);
    const expected = JSON.parse(await readFile(path.join(fixture, "expected.json"), "utf8"));
    const sandbox = await startSandbox({ port: 0, state, frozen: true });
    try {
      expect(await call(sandbox.url, "x", "GET", "/_sandbox/clock")).toEqual(expected.clock);
      expect(await call(sandbox.url, "x", "GET", "/_sandbox/accounts")).toMatchObject(expected.accounts);
      const [apiKeys] = [expected.byKey.map(([apiKey]: [string]) => apiKey)];
      expect(apiKeys).toEqual(["migrated-alpha", "migrated-beta", "__proto__"]);
      for (const [apiKey, holds] of expected.byKey) expect(await readAll(sandbox.url, apiKey), apiKey).toEqual(holds);
    } finally {
      await sandbox.stop();
    }
  });

  it(`is rewritten as format version ${STATE_VERSION} holding every record it held, in the same order`, async () => {
    const state = await copied(fixture, `records-${version}`);
    const before = loadStateFiles(state, "state.json")!;
    const sandbox = await startSandbox({ port: 0, state, frozen: true });
    await sandbox.stop();
    const after = loadStateFiles(state, "state.json")!;
    expect(after.version).toBe(STATE_VERSION);
    expect(after.journalLines).toBe(0);
    for (const table of TABLE_NAMES) expect(after.records[table].length, table).toBeGreaterThan(0);
    expect(after.records).toEqual(before.records);
    expect({ clock: after.clock, nextTaskId: after.nextTaskId, seed: after.seed }).toEqual({
      clock: before.clock,
      nextTaskId: before.nextTaskId,
      seed: before.seed,
    });
  });
});
