/**
 * `partner-api proxy`: traffic passes through unchanged; the unbroken sandbox's traffic has no violation; the
 * broken implementations of faults.test.ts are reported on traffic with the same checks; the command prints
 * each violation, appends it to --report as one JSON line, and with --fail-on-violation exits 1 at Ctrl-C.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCommand } from "partner-api-devkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proxyCommand } from "../../devkit/src/cli/proxy.ts";
import { type ContractProxy, startProxy } from "../../devkit/src/conformance/proxy.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { ONBOARD_BODY } from "../sandbox/support.ts";
import { editJson, pathOf, startFaulty } from "./support/faulty.ts";

const document = JSON.parse(readFileSync("generated/openapi.json", "utf8"));
let sandbox: Sandbox;
let companyA: string;
let companyB: string;
let holderA: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 4 });
  // A company each key onboards is its own alone (every account also holds the contract examples' company).
  const list = async (key: string) =>
    (
      (await (
        await fetch(`${sandbox.url}/v1/companies`, {
          method: "POST",
          headers: { "X-API-Key": key, "content-type": "application/json" },
          body: JSON.stringify(ONBOARD_BODY),
        })
      ).json()) as any
    ).company.id;
  companyA = await list("proxy-a");
  companyB = await list("proxy-b");
  const holders = await sandbox.controlFor("proxy-a").GET("/_sandbox/companies/{companyId}/card-holders", {
    params: { path: { companyId: companyA } },
  });
  holderA = holders.data!.cardHolders![0]!.id!;
  // A movement on A's own company, for the answers the faulty server below breaks.
  await sandbox.controlFor("proxy-a").POST("/_sandbox/companies/{companyId}/spending-account/entries", {
    params: { path: { companyId: companyA } },
    body: { type: "Card", direction: "Debit", amount: 12.5 },
  });
});
afterAll(async () => {
  await sandbox.stop();
});

async function call(
  proxy: ContractProxy,
  method: string,
  url: string,
  key: string | undefined,
  init: RequestInit = {},
) {
  const headers = new Headers(init.headers);
  if (key) headers.set("X-API-Key", key);
  const answer = await fetch(`${proxy.url}${url}`, { ...init, method, headers });
  return { status: answer.status, text: await answer.text(), contentType: answer.headers.get("content-type") };
}

describe("proxy", () => {
  it("passes the sandbox's answers through unchanged, and its good traffic breaks nothing", async () => {
    const proxy = await startProxy({ upstream: sandbox.url, document });
    try {
      const direct = await fetch(`${sandbox.url}/v1/card-bins`, {
        headers: { "X-API-Key": "proxy-a", "X-Company-Id": companyA },
      });
      const through = await call(proxy, "GET", "/v1/card-bins", "proxy-a", { headers: { "X-Company-Id": companyA } });
      expect(through).toEqual({
        status: 200,
        text: await direct.text(),
        contentType: direct.headers.get("content-type"),
      });
      await call(proxy, "GET", "/v1/companies", "proxy-a");
      await call(proxy, "GET", "/v1/cards?page=1&limit=5", "proxy-a", { headers: { "X-Company-Id": companyA } });
      await call(proxy, "GET", `/v1/card-holders/${holderA}`, "proxy-a", { headers: { "X-Company-Id": companyA } });
      const created = await call(proxy, "POST", "/v1/cards", "proxy-a", {
        headers: { "X-Company-Id": companyA, "Content-Type": "application/json" },
        body: JSON.stringify({ cardHolderId: holderA, name: "Travel", category: "TravelExpenses", bin: "45671234" }),
      });
      expect(created.status).toBe(201);
      await call(proxy, "GET", "/_sandbox/clock", undefined);
      await proxy.settled();
      expect(proxy.violations).toEqual([]);
      expect(proxy.stats).toEqual({ requests: 6, unmatched: 1, unvalidated: 0, cut: 0, refused: 0 });
    } finally {
      await proxy.close();
    }
  });

  it("an answer over the 1 MiB validation cap passes on whole and unvalidated, with an info-level note only", async () => {
    // 2 MiB of a BIN list whose every fee breaks the schema: judged, it would fail; over the cap it is not judged.
    const bins = Array.from({ length: 40_000 }, (_, index) => ({ bin: String(40000000 + index), fee: "x" }));
    const big = JSON.stringify({ cardBins: bins });
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const faulty = await startFaulty(sandbox.url, {
      response(request, response) {
        if (pathOf(request) === "/v1/card-bins" && response.status === 200) response.body = big;
      },
    });
    const notes: string[] = [];
    const proxy = await startProxy({ upstream: faulty.url, document, onNote: (note) => notes.push(note) });
    try {
      const through = await call(proxy, "GET", "/v1/card-bins", "proxy-a", { headers: { "X-Company-Id": companyA } });
      expect(through.text).toBe(big);
      await proxy.settled();
      expect(proxy.violations).toEqual([]);
      expect(proxy.stats.unvalidated).toBe(1);
      expect(notes).toEqual([
        expect.stringMatching(/^GET \/v1\/card-bins: the answer body \(\d+ bytes, over 1 MiB\) passed on unvalidated$/),
      ]);
    } finally {
      await proxy.close();
      await faulty.close();
    }
  });

  it("labels the sandbox's own injected faults as injected, not as the service's server errors", async () => {
    await sandbox.controlFor("proxy-fault").POST("/_sandbox/faults", {
      body: { operationId: "listCardBins", status: 503, times: 1 },
    });
    const companyF = (
      (await (await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": "proxy-fault" } })).json()) as any
    ).companies[0].id;
    const proxy = await startProxy({ upstream: sandbox.url, document });
    try {
      const answer = await call(proxy, "GET", "/v1/card-bins", "proxy-fault", {
        headers: { "X-Company-Id": companyF },
      });
      expect(answer.status).toBe(503);
      await proxy.settled();
      const found = proxy.violations.filter((violation) => violation.check === "not_a_server_error");
      expect(found).toHaveLength(1);
      expect(found[0]!.message).toMatch(
        /^injected fault 503 \(the sandbox's \/_sandbox\/faults, not a bug of the service\)/,
      );
    } finally {
      await proxy.close();
    }
  });
});

describe("proxy: broken implementations", () => {
  it("reports each broken implementation on traffic with the check verify uses", async () => {
    const faulty = await startFaulty(sandbox.url, {
      request(request) {
        // Credentials ignored on getTransaction; accounts that see each other: key b is served as key a.
        if (pathOf(request).startsWith("/transactions/") && !request.headers["x-api-key"])
          request.headers["x-api-key"] = "proxy-a";
        if (request.headers["x-api-key"] === "proxy-b") request.headers["x-api-key"] = "proxy-a";
      },
      async response(request, response) {
        const at = pathOf(request);
        if (at === "/v1/card-bins" && response.status === 200) {
          editJson(response, (body) => {
            body.cardBins[0].fee = "1.5";
          });
          await new Promise((resolve) => setTimeout(resolve, 120));
        }
        if (at === "/v1/card-spending-account/transactions" && response.status === 200)
          editJson(response, (body) => {
            body.transactions[0].transaction.amount = "12,50";
          });
        if (at === "/v1/cards" && request.method === "GET") response.status = 203;
        if (at.startsWith("/v1/card-holders/") && response.status === 200)
          response.headers["content-type"] = "text/plain";
        if (at === "/v1/kyb-profiles" && response.status === 422) {
          response.status = 201;
          response.body = '{"status":"SUBMITTED"}';
        }
        if (at.startsWith("/v1/payment-routes/") && response.status === 422) response.status = 500;
        // Let through: the unknown transaction, asked for without a key, answered as if it were there.
        if (at.startsWith("/transactions/") && response.status === 404) {
          response.status = 200;
          response.body = "{}";
        }
      },
    });
    const proxy = await startProxy({ upstream: faulty.url, document, maxResponseTimeMs: 80 });
    try {
      const asA = { headers: { "X-Company-Id": companyA } };
      await call(proxy, "GET", "/v1/companies", "proxy-a");
      await call(proxy, "GET", "/v1/card-bins", "proxy-a", asA);
      await call(proxy, "GET", "/v1/card-spending-account/transactions", "proxy-a", asA);
      await call(proxy, "GET", "/v1/cards", "proxy-a", asA);
      await call(proxy, "GET", `/v1/card-holders/${holderA}`, "proxy-a", asA);
      await call(proxy, "POST", "/v1/kyb-profiles", "proxy-a", {
        headers: { "X-Company-Id": companyA, "Content-Type": "application/json" },
        body: JSON.stringify({ companyName: "Acme" }),
      });
      await call(proxy, "GET", "/v1/payment-routes/not-a-route", "proxy-a", asA);
      await call(proxy, "GET", "/transactions/01JD8Y0A1B2C3D4E5F6G7H8J9K", undefined);
      await call(proxy, "GET", "/v1/card-spending-account/transactions", "proxy-b", asA);
      await proxy.settled();
      const found = new Set(proxy.violations.map((failure) => `${failure.check} ${failure.operationId}`));
      for (const expected of [
        "response_schema_conformance listCardBins",
        "max_response_time listCardBins",
        "response_schema_conformance listSpendingAccountTransactions",
        "status_code_conformance listCards",
        "content_type_conformance getCardHolder",
        "negative_data_rejection submitKybProfile",
        "not_a_server_error getPaymentRoute",
        "ignored_auth getTransaction",
        "account_isolation listSpendingAccountTransactions",
        "request_conformance submitKybProfile",
      ])
        expect(found, expected).toContain(expected);
      expect(companyB).not.toBe(companyA);
      const schema = proxy.violations.find((failure) => failure.check === "response_schema_conformance")!;
      expect(schema).toMatchObject({ jsonPath: "/cardBins/0/fee", status: 200, level: "error" });
      expect(schema.curl).toContain(`${faulty.url}/v1/card-bins`);
    } finally {
      await proxy.close();
      await faulty.close();
    }
  });
});

describe("hop-by-hop headers", () => {
  it("are dropped both ways, with the headers a Connection header names; end-to-end ones pass, repeats kept", async () => {
    let seen: Record<string, string | string[] | undefined> = {};
    const upstream = createServer((request, response) => {
      seen = request.headers;
      request.resume();
      response.setHeader("Connection", "X-Up-Hop");
      response.setHeader("X-Up-Hop", "1");
      response.setHeader("Keep-Alive", "timeout=99");
      response.setHeader("Proxy-Authenticate", "Basic");
      response.setHeader("Set-Cookie", ["a=1", "b=2"]);
      response.setHeader("X-End-To-End", "kept");
      response.setHeader("Content-Type", "application/json");
      response.end('{"companies":[]}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const proxy = await startProxy({
      upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      document,
    });
    try {
      const answer = await new Promise<IncomingMessage>((resolve, reject) => {
        const request = httpRequest(`${proxy.url}/v1/companies`, {
          headers: {
            "X-API-Key": "hop",
            Connection: "X-Client-Hop, keep-alive",
            "X-Client-Hop": "1",
            "Keep-Alive": "timeout=7",
            TE: "trailers",
            Upgrade: "h2c",
            "Proxy-Authorization": "Basic c2VjcmV0",
            "X-Kept": "yes",
          },
        });
        request.on("response", resolve).on("error", reject).end();
      });
      answer.resume();
      for (const name of ["x-client-hop", "te", "upgrade", "proxy-authorization", "proxy-connection"])
        expect(seen[name], name).toBeUndefined();
      // The proxy's own connection to the upstream has its own (Node's agent sends timeout=5), not the client's.
      expect(seen["keep-alive"]).not.toBe("timeout=7");
      expect(seen.connection).toBe("keep-alive");
      expect(seen["x-kept"]).toBe("yes");
      expect(seen.host).toBe(new URL(proxy.url.replace(/:\d+$/, `:${(upstream.address() as AddressInfo).port}`)).host);
      for (const name of ["x-up-hop", "proxy-authenticate"]) expect(answer.headers[name], name).toBeUndefined();
      // The proxy's own connection with the client: its server's Keep-Alive, not the upstream's.
      expect(answer.headers["keep-alive"]).not.toBe("timeout=99");
      expect(answer.headers["x-end-to-end"]).toBe("kept");
      expect(answer.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    } finally {
      await proxy.close();
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });
});

describe("the proxy command", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "partner-proxy-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints each violation, appends it to --report, and exits 1 at Ctrl-C with --fail-on-violation", async () => {
    const report = path.join(dir, "violations.jsonl");
    const out: string[] = [];
    const err: string[] = [];
    const controller = new AbortController();
    const io = { out: (text: string) => out.push(text), err: (text: string) => err.push(text) };
    const command = proxyCommand({ name: "partner-api proxy" });
    const running = runCommand(
      command,
      ["--upstream", sandbox.url, "--port", "0", "--report", report, "--fail-on-violation"],
      io,
      controller.signal,
    );
    while (!out.some((line) => line.startsWith("Proxy on "))) await new Promise((resolve) => setTimeout(resolve, 10));
    const url = /Proxy on (\S+) /.exec(out.join("\n"))![1]!;
    // No X-Company-Id: the sandbox refuses it (conforming), and the request itself breaks the contract.
    expect((await fetch(`${url}/v1/card-bins`, { headers: { "X-API-Key": "proxy-a" } })).status).toBe(422);
    // A path the contract does not have: passed through, reported as the client's side.
    await fetch(`${url}/v1/no-such-thing`, { headers: { "X-API-Key": "proxy-a" } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    const code = await running;
    const lines = readFileSync(report, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.check)).toEqual(["request_conformance", "request_conformance"]);
    expect(lines[0]).toMatchObject({ operationId: "listCardBins", method: "GET", path: "/v1/card-bins", status: 422 });
    expect(err.join("\n")).toMatch(
      /✗ \[request_conformance\] listCardBins GET \/v1\/card-bins → 422: the request breaks the contract: the header parameter X-Company-Id is required/,
    );
    // Only warnings: the implementation answered as it should, so --fail-on-violation does not fail the run.
    expect(code).toBe(0);
    expect(err.join("\n")).toMatch(
      /✓ proxy stopped: 2 request\(s\) forwarded \(1 not in the contract\), 0 violation\(s\), 2 warning\(s\)/,
    );
  });

  it("exits 1 with --fail-on-violation when an answer broke the contract", async () => {
    const faulty = await startFaulty(sandbox.url, {
      response(request, response) {
        if (pathOf(request) === "/v1/companies") response.status = 299;
      },
    });
    const controller = new AbortController();
    const out: string[] = [];
    const err: string[] = [];
    const running = runCommand(
      proxyCommand({ name: "partner-api proxy" }),
      ["--upstream", faulty.url, "--port", "0", "--fail-on-violation"],
      { out: (text) => out.push(text), err: (text) => err.push(text) },
      controller.signal,
    );
    while (!out.some((line) => line.startsWith("Proxy on "))) await new Promise((resolve) => setTimeout(resolve, 10));
    const url = /Proxy on (\S+) /.exec(out.join("\n"))![1]!;
    await fetch(`${url}/v1/companies`, { headers: { "X-API-Key": "proxy-a" } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await running).toBe(1);
    expect(err.join("\n")).toMatch(
      /FAILED: 1 request\(s\) forwarded \(0 not in the contract\), 1 violation\(s\), 0 warning\(s\): status_code_conformance 1/,
    );
    await faulty.close();
  });
});

describe("the proxy command with a command after --", () => {
  const run = (args: string[], signal?: AbortSignal) => {
    const err: string[] = [];
    const running = runCommand(
      proxyCommand({ name: "partner-api proxy" }),
      ["--upstream", sandbox.url, "--fail-on-violation", "--", ...args],
      { out: () => undefined, err: (text) => err.push(text) },
      signal,
    );
    return { running, err };
  };

  it("runs it with PARTNER_API_BASE_URL at the proxy, stops with it, and fails (exit 1) when it fails", async () => {
    const script =
      "fetch(process.env.PARTNER_API_BASE_URL + '/v1/companies', { headers: { 'X-API-Key': 'proxy-a' } }).then((r) => process.exit(r.status === 200 ? 3 : 9))";
    const { running, err } = run([process.execPath, "-e", script]);
    expect(await running).toBe(1);
    expect(err.join("\n")).toMatch(/Running \S+ -e .* with PARTNER_API_BASE_URL=http:\/\/127\.0\.0\.1:\d+\./);
    expect(err.join("\n")).toMatch(
      /FAILED: \S+ -e .* failed \(exit 3\); proxy: 1 request\(s\) forwarded \(0 not in the contract\), 0 violation\(s\)/,
    );
  });

  it("a stop (Ctrl-C, SIGTERM) stops the command too, and the run fails: the tests did not finish", async () => {
    const controller = new AbortController();
    const { running, err } = run([process.execPath, "-e", "setInterval(() => {}, 1000)"], controller.signal);
    while (!err.some((line) => line.includes("Running "))) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(await running).toBe(1);
    expect(err.join("\n")).toMatch(/stopped: stopping \S+ -e .* \(SIGTERM\)/);
    expect(err.join("\n")).toMatch(/failed \(signal SIGTERM\)/);
  });

  it("a command that cannot start is bad input (exit 2), named", async () => {
    const { running, err } = run(["no-such-command-for-the-proxy"]);
    expect(await running).toBe(2);
    expect(err.join("\n")).toMatch(/the command no-such-command-for-the-proxy could not be started \(ENOENT\)/);
  });
});

describe("the proxy command's bad input", () => {
  it.each([
    [[], /--upstream is required/],
    [["--upstream", "nope"], /--upstream must be an http: or https: URL, got "nope"/],
    [["--upstream", "http://127.0.0.1:4020", "--port", "99999"], /--port must be a whole number from 0 to 65535/],
    [
      ["--upstream", "http://127.0.0.1:4020", "--report", "no-such-dir-p/v.jsonl"],
      /--report no-such-dir-p\/v.jsonl: its folder does not exist/,
    ],
  ])("%j is bad input (exit 2), named", async (args, message) => {
    const err: string[] = [];
    const code = await runCommand(proxyCommand({ name: "partner-api proxy" }), args, {
      out: () => undefined,
      err: (text) => err.push(text),
    });
    expect(code).toBe(2);
    expect(err.join("\n")).toMatch(message);
  });
});
