import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type CliIO, runCommand } from "partner-api-devkit/cli";
import { afterAll, describe, expect, it } from "vitest";
import { webhooksCommands } from "../../devkit/src/cli/webhooks.ts";
import { readContractWebhooks } from "../../devkit/src/webhooks/contract.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { type Delivery, startReceiver } from "../../scripts/lib/receiver.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";
import { signWebhookPayload, verifyWebhookSignature, webhookEventTypes } from "../../src/webhooks/index.ts";

const SECRET = "whsec_cli_test";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** scripts/webhooks.ts in node with SOURCE_NODE_ARGS, as `npm run webhooks -- …` runs it: real output and exit code. */
function runCli(args: string[], { timeoutMs = 30_000 } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, "scripts/webhooks.ts", ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`webhooks ${args.join(" ")} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The same handlers in this process, through the one runner: for answers that need no real exit. */
async function runInProcess(args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (text) => out.push(text), err: (text) => err.push(text) };
  const code = await runCommand(webhooksCommands("npm run webhooks --"), args, io);
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

const gaps = (deliveries: Delivery[]) => deliveries.slice(1).map((d, i) => d.at - deliveries[i]!.at);

describe("webhooks list", () => {
  it("prints the contract's event types, one line each", async () => {
    const run = await runCli(["list"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual([...webhookEventTypes]);
    expect(run.stderr).toMatch(/^6 event types, from generated\/openapi\.json in \d+ ms$/m);
  });
});

describe("webhooks trigger over loopback", () => {
  const servers: { close: () => Promise<void> }[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it("retries a receiver that fails twice: three deliveries, one event id, same bytes, every signature valid", async () => {
    const flaky = await startReceiver([500, 503, 204]);
    servers.push(flaky);
    const run = await runCli([
      "trigger",
      "company.kyc_status_changed",
      "--url",
      flaky.url,
      "--secret",
      SECRET,
      "--speed",
      "1000",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(flaky.deliveries).toHaveLength(3);
    const ids = new Set(flaky.deliveries.map((d) => JSON.parse(d.body).id));
    expect(ids.size).toBe(1);
    expect(new Set(flaky.deliveries.map((d) => d.body)).size).toBe(1);
    for (const delivery of flaky.deliveries) {
      expect(verifyWebhookSignature(delivery.body, delivery.signature, SECRET)).toBe(true);
      expect(delivery.contentType).toBe("application/json");
    }
    // The waits are the schedule's 10 s and 30 s divided by --speed 1000.
    const [first, second] = gaps(flaky.deliveries);
    expect(first).toBeGreaterThanOrEqual(9);
    expect(second).toBeGreaterThanOrEqual(29);
    const event = JSON.parse(flaky.deliveries[0]!.body);
    const contract = (await readContractWebhooks()).find((w) => w.type === "company.kyc_status_changed")!;
    expect(event).toMatchObject({ type: "company.kyc_status_changed", payload: contract.example.payload });
    expect(event.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(run.stdout).toMatch(/attempt 1\/6: ✗ 500 Internal Server Error/);
    expect(run.stdout).toMatch(/retry 1\/5 in 10\.00 s, 10 ms at this speed/);
    expect(run.stdout).toMatch(/attempt 2\/6: ✗ 503 Service Unavailable/);
    expect(run.stdout).toMatch(/retry 2\/5 in 30\.00 s, 30 ms at this speed/);
    expect(run.stdout).toMatch(/attempt 3\/6: ✓ 204 No Content/);
    expect(run.stdout).toMatch(new RegExp(`delivered ${event.id} on attempt 3/6 \\(\\d+ ms\\)`));
  });

  it("gives up on a receiver that never recovers: six deliveries on the schedule, non-zero exit", async () => {
    const broken = await startReceiver([500]);
    servers.push(broken);
    const run = await runCli([
      "trigger",
      "payment_route.created",
      "--url",
      broken.url,
      "--secret",
      SECRET,
      "--speed",
      "1000",
      "--id",
      "evt_fixed",
    ]);
    expect(run.code).toBe(1);
    expect(broken.deliveries).toHaveLength(6);
    expect(new Set(broken.deliveries.map((d) => JSON.parse(d.body).id))).toEqual(new Set(["evt_fixed"]));
    expect(broken.deliveries.every((d) => verifyWebhookSignature(d.body, d.signature, SECRET))).toBe(true);
    const measured = gaps(broken.deliveries);
    for (const [i, wait] of [10, 30, 60, 120, 300].entries()) expect(measured[i]).toBeGreaterThanOrEqual(wait - 1);
    expect(run.stdout.match(/^attempt \d\/6: ✗ 500/gm)).toHaveLength(6);
    expect(run.stderr).toMatch(/FAILED: not delivered: all 6 attempts failed for evt_fixed/);
  });

  it("counts an unreachable receiver as a failed attempt", async () => {
    const gone = await startReceiver([200]);
    await gone.close();
    const run = await runCli([
      "trigger",
      "company.kyb_status_changed",
      "--url",
      gone.url,
      "--secret",
      SECRET,
      "--speed",
      "100000",
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout.match(/^attempt \d\/6: ✗ unreachable \(ECONNREFUSED\)/gm)).toHaveLength(6);
  });

  it("sends the given --payload file inside a fresh envelope", async () => {
    const ok = await startReceiver([200]);
    servers.push(ok);
    const dir = mkdtempSync(path.join(tmpdir(), "webhooks-cli-"));
    const file = path.join(dir, "payload.json");
    writeFileSync(file, JSON.stringify({ companyId: "01JD8X2K7P3M9Q4R6S8T0V2W4X", kycStatus: "rejected" }));
    const run = await runCli([
      "trigger",
      "company.kyc_status_changed",
      "--url",
      ok.url,
      "--secret",
      SECRET,
      "--payload",
      file,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const event = JSON.parse(ok.deliveries[0]!.body);
    expect(event.payload).toEqual({ companyId: "01JD8X2K7P3M9Q4R6S8T0V2W4X", kycStatus: "rejected" });
    expect(Number.isNaN(Date.parse(event.createdAt))).toBe(false);
    expect(run.stdout).toMatch(/payload from .*payload\.json/);
  });
});

describe.concurrent("webhooks bad input exits 2 with an error naming it", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "webhooks-cli-bad-"));
  writeFileSync(path.join(dir, "broken.json"), "{ not json");
  writeFileSync(path.join(dir, "array.json"), "[1, 2]");
  const url = "http://127.0.0.1:1/webhooks";
  const trigger = (...extra: string[]) => [
    "trigger",
    "company.kyc_status_changed",
    "--url",
    url,
    "--secret",
    SECRET,
    ...extra,
  ];

  it.each([
    ["no command", [], /Usage: npm run webhooks -- <command>/],
    ["an unknown command", ["replay"], /unknown command "replay"; expected one of list, trigger, listen/],
    ["list with arguments", ["list", "extra"], /unexpected argument "extra"/],
    ["no event type", ["trigger", "--url", url, "--secret", SECRET], /missing the event type/],
    [
      "an unknown event type",
      ["trigger", "card.created", "--url", url, "--secret", SECRET],
      /unknown event type "card\.created"; known: company\.onboarding_status_changed/,
    ],
    ["a missing --url", ["trigger", "payment_route.created", "--secret", SECRET], /missing --url/],
    [
      "a bad --url",
      ["trigger", "payment_route.created", "--url", "localhost", "--secret", SECRET],
      /--url "localhost" is not a URL/,
    ],
    [
      "a non-http --url",
      ["trigger", "payment_route.created", "--url", "ftp://127.0.0.1/", "--secret", SECRET],
      /must be http: or https:/,
    ],
    ["a missing --secret", ["trigger", "payment_route.created", "--url", url], /missing --secret/],
    ["--speed 0", trigger("--speed", "0"), /--speed must be a number greater than 0 .*got "0"/],
    ["--speed -5", trigger("--speed=-5"), /--speed must be a number greater than 0 .*got "-5"/],
    ["--speed fast", trigger("--speed", "fast"), /--speed must be a number greater than 0 .*got "fast"/],
    [
      "an unreadable --payload",
      trigger("--payload", path.join(dir, "missing.json")),
      /cannot read --payload .*missing\.json: ENOENT/,
    ],
    [
      "a non-JSON --payload",
      trigger("--payload", path.join(dir, "broken.json")),
      /--payload .*broken\.json is not JSON/,
    ],
    [
      "a --payload that is not an object",
      trigger("--payload", path.join(dir, "array.json")),
      /must hold a JSON object .*got an array/,
    ],
    ["an unknown option", trigger("--retries", "3"), /Unknown option '--retries'/],
    ["listen without --port", ["listen", "--secret", SECRET], /missing --port/],
    [
      "listen with a bad --port",
      ["listen", "--port", "70000", "--secret", SECRET],
      /--port must be a whole number from 0 to 65535, got "70000"/,
    ],
    ["listen without --secret", ["listen", "--port", "0"], /missing --secret/],
    [
      "listen with a bad --host",
      ["listen", "--port", "0", "--secret", SECRET, "--host", "not a host"],
      /--host must be an IP address or a host name .*got "not a host"/,
    ],
  ])("%s", async (_, args, message) => {
    const run = await runInProcess(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe("");
  });
});

describe("webhooks listen", () => {
  let child: ChildProcessWithoutNullStreams | undefined;
  afterAll(() => void child?.kill("SIGKILL"));

  it("verifies deliveries, prints type, id and verdict, and answers 2xx or 4xx", async () => {
    // One process (no npx wrapper), so the test can stop it with a signal.
    child = spawn(
      process.execPath,
      [...SOURCE_NODE_ARGS, "scripts/webhooks.ts", "listen", "--port", "0", "--secret", SECRET],
      { cwd: repoRoot },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    const waitFor = async (pattern: RegExp) => {
      for (let i = 0; i < 200 && !pattern.test(stdout); i++) await new Promise((r) => setTimeout(r, 50));
      expect(stdout).toMatch(pattern);
      return stdout.match(pattern)!;
    };
    const port = Number((await waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)\//))[1]);
    const url = `http://127.0.0.1:${port}/`;
    const body = JSON.stringify({
      id: "evt_listen_1",
      type: "payment_route.created",
      payload: {},
      createdAt: "2026-11-21T09:12:44Z",
    });
    const post = (signature: string) => fetch(url, { method: "POST", headers: { "x-signature": signature }, body });

    expect((await post(signWebhookPayload(body, SECRET))).status).toBe(200);
    expect((await post(signWebhookPayload(body, SECRET))).status).toBe(200);
    expect((await post(signWebhookPayload(body, "whsec_wrong"))).status).toBe(401);
    await waitFor(/200 handled payment_route\.created evt_listen_1\n/);
    await waitFor(/200 duplicate payment_route\.created evt_listen_1\n/);
    await waitFor(/401 bad_signature payment_route\.created evt_listen_1 \[unverified\] \(mismatch\)/);
    // The kit's own answers to what is not a delivery: another method, a body over 1 MiB.
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const huge = await fetch(url, { method: "POST", body: "x".repeat(1024 * 1024 + 1) });
    expect(huge.status).toBe(413);
    await waitFor(/405 method_not_allowed \? \? \[unverified\] \(webhooks are POSTed, got GET\)/);
    await waitFor(/413 too_large \? \? \[unverified\]/);

    // The two halves together, as the README shows them.
    const run = await runCli([
      "trigger",
      "company.kyc_link.issued",
      "--url",
      url,
      "--secret",
      SECRET,
      "--id",
      "evt_listen_2",
    ]);
    expect(run.code, run.stderr).toBe(0);
    await waitFor(/200 handled company\.kyc_link\.issued evt_listen_2\n/);

    child.kill("SIGTERM");
    await new Promise((resolve) => child!.once("close", resolve));
    expect(stdout).toMatch(/stopped: 6 deliveries, 3 accepted, 3 refused/);
  });
});
