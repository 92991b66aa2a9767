/**
 * The hostile corpus (test/helpers/hostile-requests.ts) against the sandbox in process, once: nothing answered
 * or logged as a 5xx. A request whose sender goes away mid-body is dropped, not recorded as the sandbox's error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { runCorpus } from "../helpers/hostile-requests.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 14 });
});
afterAll(() => sandbox.stop());

describe("the sandbox under the hostile corpus", () => {
  it("answers or drops each request, never with a 5xx, and logs none", async () => {
    const result = await runCorpus(
      sandbox.port,
      { method: "POST", path: "/v1/companies", headers: { "x-api-key": "corpus" } },
      async () => (await fetch(`${sandbox.url}/_sandbox/clock`)).ok,
    );
    expect(result.serverErrors).toEqual([]);
    const log = await fetch(`${sandbox.url}/_sandbox/requests`, { headers: { "X-API-Key": "corpus" } });
    const calls = ((await log.json()) as { requests: { status: number; path: string }[] }).requests;
    expect(calls.filter((call) => call.status >= 500)).toEqual([]);
  }, 60_000);
});
