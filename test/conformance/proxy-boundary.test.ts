/**
 * The proxy applies the sandbox's browser boundary before forwarding: it rewrites `Host` to the upstream's, so
 * without it a page on a rebound name (`Host: rebind.evil.example:4030`) read the control API, every account
 * with it, through the proxy. Refused with the sandbox's 403 and never forwarded; `--allowed-host` names a host
 * it answers too, as the sandbox's option does.
 */

import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ContractProxy, startProxy } from "../../devkit/src/conformance/proxy.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";

const document = JSON.parse(readFileSync("generated/openapi.json", "utf8"));
let sandbox: Sandbox;
let proxy: ContractProxy;
let allowing: ContractProxy;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 4 });
  await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": "boundary-a" } });
  proxy = await startProxy({ upstream: sandbox.url, port: 0, document });
  allowing = await startProxy({ upstream: sandbox.url, port: 0, document, allowedHosts: [".dev.example"] });
});
afterAll(async () => {
  await proxy.close();
  await allowing.close();
  await sandbox.stop();
});

/** One raw request, with the Host and headers given (fetch does not let a caller set Host). */
function raw(target: ContractProxy, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = httpRequest(`${target.url}${path}`, { headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

describe("the proxy's browser boundary", () => {
  it("refuses a rebound Host before forwarding, naming --allowed-host", async () => {
    const before = proxy.stats.requests;
    const answer = await raw(proxy, "/_sandbox/accounts", { host: "rebind.evil.example:4030" });
    expect(answer.status).toBe(403);
    expect(answer.body).toContain("--allowed-host rebind.evil.example");
    expect(answer.body).not.toContain("boundary-a");
    expect(proxy.stats.requests).toBe(before);
    expect(proxy.stats.refused).toBeGreaterThan(0);
    // A partner call on that Host too: nothing passes for a name the proxy was not told of.
    expect((await raw(proxy, "/v1/companies", { host: "rebind.evil.example", "x-api-key": "boundary-a" })).status).toBe(
      403,
    );
  });

  it("refuses the control API to another origin, keeps the partner API open to any", async () => {
    const port = new URL(proxy.url).port;
    const control = await raw(proxy, "/_sandbox/accounts", {
      host: `127.0.0.1:${port}`,
      origin: "https://evil.example",
    });
    expect(control.status).toBe(403);
    expect(control.body).toContain("only their own origin");
    const partner = await raw(proxy, "/v1/companies", {
      host: `127.0.0.1:${port}`,
      origin: "https://app.example",
      "x-api-key": "boundary-a",
    });
    expect(partner.status).toBe(200);
  });

  it("answers localhost, an IP and an allowed name as the sandbox does", async () => {
    const port = new URL(allowing.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `api.dev.example:${port}`])
      expect((await raw(allowing, "/v1/companies", { host, "x-api-key": "boundary-a" })).status, host).toBe(200);
    expect((await raw(allowing, "/v1/companies", { host: `dev.example.evil:${port}` })).status).toBe(403);
  });

  it("refuses a bad --allowed-host by name", async () => {
    await expect(startProxy({ upstream: sandbox.url, port: 0, document, allowedHosts: ["a b"] })).rejects.toThrow(
      /allowedHosts\[0\]/,
    );
  });
});
