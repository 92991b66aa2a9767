/**
 * A state file written by an earlier release loads: test/sandbox/fixtures/state-v2/ holds a snapshot and its
 * journal as the sandbox of format version 2 wrote them (make-fixture.ts says how), with what that sandbox
 * answered to reads of everything it held. A sandbox started on a copy answers the same.
 */
import { copyFile, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../devkit/src/sandbox/index.ts";
import { call, readAll } from "./fixtures/state-v2/read-all.ts";

const fixture = path.resolve("test/sandbox/fixtures/state-v2");
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-migration-"));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

describe("a state file of format version 2 (snapshot and journal)", () => {
  it("loads: every account, record, pending task and delivery attempt answers as the release that wrote it did", async () => {
    for (const name of await readdir(fixture))
      if (name.startsWith("state.json")) await copyFile(path.join(fixture, name), path.join(folder, name));
    const expected = JSON.parse(await readFile(path.join(fixture, "expected.json"), "utf8"));
    const sandbox = await startSandbox({ port: 0, state: path.join(folder, "state.json"), frozen: true });
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
});
