/**
 * With a state file every change is on disk before its response: the state survives `kill -9` and a restart.
 * A corrupt state file, another program's, or one written by a newer schema is refused with an error naming it
 * and left as it was; a second sandbox on a file one has open is refused naming the file and the process.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { contractExamples } from "../../devkit/src/sandbox/flows/examples.ts";
import { startSandbox } from "../../devkit/src/sandbox/index.ts";
import {
  APPLICATION_ID,
  openDatabase,
  readStateFile,
  SCHEMA_VERSION,
} from "../../devkit/src/sandbox/store/sqlite-store.ts";
import { type SandboxProcess, startSandboxProcess } from "../../scripts/lib/sandbox-process.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";
import { clientFor, ONBOARD_BODY, seededCompany } from "./support.ts";

const runner = path.resolve("test/sandbox/fixtures/run-sandbox.ts");

let folder: string;
const children: SandboxProcess[] = [];
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-state-"));
});
afterEach(async () => {
  for (const child of children.splice(0)) await child.stop();
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** Starts the sandbox in a child process (run-sandbox.ts); resolves once it prints its address. */
async function spawnSandbox(options: object): Promise<SandboxProcess> {
  // node itself, not npm: npm runs node as a grandchild, which a SIGKILL to npm would leave running.
  const started = await startSandboxProcess({ args: [...SOURCE_NODE_ARGS, runner, JSON.stringify(options)] });
  children.push(started);
  return started;
}

describe("kill -9 and restart", () => {
  it("every answered change is still there after SIGKILL, and ids carry on without repeating", async () => {
    const state = path.join(folder, "kill.json");
    const first = await spawnSandbox({ port: 0, seed: 4, state });
    const client = clientFor(first.url, "durable");
    const { companyId, cardHolderId } = await seededCompany(client);
    const onboarded = await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    const cards = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.post(
          "/v1/cards",
          { cardHolderId, name: `Card ${i}`, category: "Other", bin: "45671234" },
          { companyId },
        ),
      ),
    );
    await first.stop();

    const second = await spawnSandbox({ port: 0, state });
    const again = clientFor(second.url, "durable");
    const companies = (await again.get("/v1/companies")).body.companies.map((c: { id: string }) => c.id);
    expect(companies).toEqual([companyId, onboarded.body.company.id]);
    const listed = await again.get("/v1/cards?limit=100", { companyId });
    // The cards made, and the contract examples' card every account holds.
    expect(listed.body.cards.map((c: { id: string }) => c.id).sort()).toEqual(
      [contractExamples().card.card.id, ...cards.map((c) => c.body.card.id)].sort(),
    );
    expect((await again.get("/_sandbox/events")).body.events.map((e: { type: string }) => e.type)).toEqual([
      "company.kyc_link.issued",
    ]);
    const next = await again.post("/v1/companies", ONBOARD_BODY);
    expect(companies).not.toContain(next.body.company.id);
    await second.stop();
  });

  it("a timed transition pending at the kill still happens after the restart", async () => {
    const state = path.join(folder, "timed.json");
    const first = await spawnSandbox({ port: 0, seed: 4, state, cardIssuingSeconds: 30 });
    const client = clientFor(first.url, "timed");
    const { companyId, cardHolderId } = await seededCompany(client);
    const made = await client.post(
      "/v1/cards",
      { cardHolderId, name: "Later", category: "Other", bin: "45671234" },
      { companyId },
    );
    await first.stop();
    const second = await spawnSandbox({ port: 0, state });
    const again = clientFor(second.url, "timed");
    const status = async () =>
      (await again.get("/v1/cards", { companyId })).body.cards.find((c: { id: string }) => c.id === made.body.card.id)
        .status;
    expect(await status()).toBe("Creating");
    await again.post("/_sandbox/clock/advance", { seconds: 30 });
    expect(await status()).toBe("Active");
    await second.stop();
  });
});

describe("state files that are refused", () => {
  it.each([
    ["corrupt JSON", '{"format":"partner-api-sandbox-state","version":4,"accou', "is corrupt"],
    ["another program's JSON", '{"hello": "world"}', "is not a sandbox state file"],
    [
      "an earlier format",
      '{"format":"partner-api-sandbox-state","version":3,"tables":{}}',
      "migrates format version 4 only",
    ],
  ])("%s: startSandbox throws naming the file, and the file is untouched", async (_, content, why) => {
    const state = path.join(folder, `refused-${why.replace(/\W/g, "")}-${content.length}.json`);
    await writeFile(state, content);
    const error = await startSandbox({ port: 0, state }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain(path.basename(state));
    expect(error?.message).toContain(why);
    expect(await readFile(state, "utf8")).toBe(content);
  });

  it.each([
    ["a newer schema", APPLICATION_ID, SCHEMA_VERSION + 1, "newer sandbox (schema version"],
    ["another program's database", 0, 0, "not a sandbox state"],
  ])("%s (an SQLite database) is refused naming the file, and left as it was", async (_, application, version, why) => {
    const state = path.join(folder, `refused-db-${version}.db`);
    const db = openDatabase(state);
    db.exec(`CREATE TABLE notes (text TEXT); PRAGMA application_id = ${application}; PRAGMA user_version = ${version}`);
    db.close();
    const before = await readFile(state);
    await expect(startSandbox({ port: 0, state })).rejects.toThrow(
      new RegExp(`${path.basename(state)}.*${why.replace(/\(/g, "\\(")}`),
    );
    expect((await readFile(state)).equals(before)).toBe(true);
  });

  it("a file written with another seed than the one asked for is refused; without a seed it carries on", async () => {
    const state = path.join(folder, "seeded.json");
    const first = await startSandbox({ port: 0, seed: 4, state });
    await clientFor(first.url, "seeded").get("/v1/companies");
    await first.stop();
    const written = readStateFile(state, "state");
    await expect(startSandbox({ port: 0, seed: 5, state })).rejects.toThrow(
      /seeded\.json was written with seed 4, not 5/,
    );
    expect(readStateFile(state, "state")).toEqual(written);
    const again = await startSandbox({ port: 0, state });
    expect((await clientFor(again.url, "seeded").get("/v1/companies")).body.companies).toHaveLength(1);
    await again.stop();
  });

  it("the sandbox process exits with the error and leaves the file as it was", async () => {
    const state = path.join(folder, "refused-child.json");
    await writeFile(state, "not json at all");
    await expect(spawnSandbox({ port: 0, state })).rejects.toThrow("refused-child.json");
    expect(await readFile(state, "utf8")).toBe("not json at all");
  });
});

describe("one sandbox per state file", () => {
  it("a second process on the same file is refused at start, naming the file and the process holding it; once that one is gone (kill -9), it starts", async () => {
    const state = path.join(folder, "shared.db");
    const first = await spawnSandbox({ port: 0, seed: 4, state });
    const client = clientFor(first.url, "shared");
    await client.post("/v1/companies", ONBOARD_BODY);
    const refused = await spawnSandbox({ port: 0, state }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toContain("shared.db is in use by process");
    expect(refused?.message).toMatch(new RegExp(`process ${first.child.pid}\\b`));
    // The first still answers and writes.
    expect((await client.post("/v1/companies", ONBOARD_BODY)).status).toBe(201);
    await first.stop("SIGKILL");
    const second = await spawnSandbox({ port: 0, state });
    expect((await clientFor(second.url, "shared").get("/v1/companies")).body.companies).toHaveLength(3);
  });

  it("a second sandbox in the same process is refused too; after a clean stop the file opens again", async () => {
    const state = path.join(folder, "same-process.db");
    const first = await startSandbox({ port: 0, state });
    await expect(startSandbox({ port: 0, state })).rejects.toThrow(/same-process\.db is in use by process/);
    await first.stop();
    const again = await startSandbox({ port: 0, state });
    await again.stop();
  });
});

describe("in memory", () => {
  it("without a state file nothing is written and a new sandbox starts from the seed", async () => {
    const a = await startSandbox({ port: 0, seed: 9 });
    const client = clientFor(a.url, "memory");
    await client.post("/v1/companies", ONBOARD_BODY);
    expect((await client.get("/v1/companies")).body.companies).toHaveLength(2);
    await a.stop();
    const b = await startSandbox({ port: 0, seed: 9 });
    expect((await clientFor(b.url, "memory").get("/v1/companies")).body.companies).toHaveLength(1);
    await b.stop();
  });
});
