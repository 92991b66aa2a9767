/**
 * The hostile-request corpus (test/helpers/hostile-requests.ts) against every server of the repository, each run
 * as the process a developer runs: the sandbox, the mock (our front and Prism behind it), the proxy, `webhooks
 * listen` and `docs:preview`. Each request is answered (never a 5xx) or dropped, and the server answers a plain
 * request after every one. `webhooks listen` died on an aborted body and on bad chunking (an unhandled
 * ECONNRESET); the mock died on a 5,000-deep JSON array (Prism's logger overflowed its stack). The figures
 * (requests sent, 5xx, resident memory before and after) are printed for docs/design/hostile-input-3.md.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { type CliProcess, killStarted, MiB, startCli, startScript, statusField } from "../helpers/child.ts";
import { type CorpusTarget, runCorpus } from "../helpers/hostile-requests.ts";

afterEach(killStarted);
const folder = mkdtempSync(path.join(tmpdir(), "hostile-servers-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Whether a plain GET at `url` gets any HTTP answer within 5 s. */
async function answers(url: string, headers: Record<string, string> = {}): Promise<boolean> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
    await response.arrayBuffer();
    return response.status < 500;
  } catch {
    return false;
  }
}

const rssOf = (pids: number[]) => pids.reduce((sum, pid) => sum + statusField(pid, "VmRSS"), 0);
const mb = (bytes: number) => `${(bytes / MiB).toFixed(0)} MB`;

/** Runs the corpus ROUNDS times against a started server; prints and checks the figures. */
async function attack(
  name: string,
  server: CliProcess,
  port: number,
  target: CorpusTarget,
  alive: () => Promise<boolean>,
  pids: () => number[] = () => [server.child.pid!],
) {
  expect(await alive()).toBe(true);
  const before = rssOf(pids());
  const result = await runCorpus(port, target, alive, ROUNDS);
  const after = rssOf(pids());
  console.log(
    `${name}: ${result.sent} requests, ${result.answered} answered, ${result.dropped} dropped, ${result.serverErrors.length} 5xx; RSS ${mb(before)} → ${mb(after)}`,
  );
  expect(result.serverErrors, JSON.stringify(result.serverErrors)).toEqual([]);
  expect(server.child.exitCode).toBeNull();
  expect(await alive()).toBe(true);
  return result;
}

/** Rounds of the corpus per server; the figures in docs/design/hostile-input-3.md were taken with HOSTILE_ROUNDS=12. */
const ROUNDS = Number(process.env.HOSTILE_ROUNDS ?? 3);
const portOf = (url: string) => Number(new URL(url).port);
const KEY = { "x-api-key": "hostile" };

describe("every server under the hostile corpus", () => {
  it("the sandbox", async () => {
    const sandbox = startCli(["sandbox", "--port", "0"]);
    const url = (await sandbox.waitFor(/http:\/\/127\.0\.0\.1:\d+/))[0];
    await attack("sandbox", sandbox, portOf(url), { method: "POST", path: "/v1/companies", headers: KEY }, () =>
      answers(`${url}/_sandbox/clock`),
    );
  });

  it("the mock: Prism behind our front, deep JSON bounded before its logger", async () => {
    const mock = startCli(["mock", "--port", "0"]);
    const url = (await mock.waitFor(/Mock serving .* on (http:\/\/127\.0\.0\.1:\d+)/, 90_000))[1]!;
    const prism = Number((await mock.waitFor(/Prism pid (\d+)/))[1]);
    await attack(
      "mock",
      mock,
      portOf(url),
      { method: "POST", path: "/v1/companies", headers: KEY },
      () => answers(`${url}/v1/companies`, KEY),
      () => [mock.child.pid!, prism],
    );
  }, 240_000);

  it("the proxy, in front of a sandbox", async () => {
    const sandbox = startCli(["sandbox", "--port", "0"]);
    const upstream = (await sandbox.waitFor(/http:\/\/127\.0\.0\.1:\d+/))[0];
    const proxy = startCli(["proxy", "--upstream", upstream, "--port", "0"]);
    const url = (await proxy.waitFor(/Proxy on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    await attack("proxy", proxy, portOf(url), { method: "POST", path: "/v1/companies", headers: KEY }, () =>
      answers(`${url}/_sandbox/clock`),
    );
  });

  it("webhooks listen", async () => {
    const listen = startCli(["webhooks", "listen", "--port", "0", "--secret", "whsec_x"]);
    const url = (await listen.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\//))[1]!;
    await attack("webhooks listen", listen, portOf(url), { method: "POST", path: "/" }, () => answers(url));
  });

  it("docs:preview", async () => {
    writeFileSync(path.join(folder, "index.html"), "<!doctype html><title>docs</title>");
    const preview = startScript(path.join(repoRoot, "scripts", "docs-preview.ts"), ["--port", "0", "--dir", folder]);
    const url = (await preview.waitFor(/Docs preview: (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    await attack("docs:preview", preview, portOf(url), { method: "POST", path: "/" }, () => answers(`${url}/`));
  });
});
