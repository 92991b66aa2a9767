/**
 * The sandbox's browser boundary (boundary.ts): a page on another origin, or on a name pointed at this machine
 * (DNS rebinding), reads no secret and changes nothing through the control API, the log, its stream or the
 * dashboard; the partner API keeps Prism's permissive CORS. The hosted pages run no script: a strict
 * Content-Security-Policy, and never a link that is not http(s). Requests are sent with node:http, which
 * sends the Host and Origin headers as given, as a browser or a rebinding page would.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxCommand } from "../../devkit/src/cli/sandbox.ts";
import { createBoundary, hostNameOf } from "../../devkit/src/sandbox/boundary.ts";
import { HOSTED_PAGE_POLICY, renderKycPage } from "../../devkit/src/sandbox/hosted.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import type { CompanyRecord } from "../../devkit/src/sandbox/records.ts";
import { runInProcess } from "../helpers/run.ts";
import { clientFor, ONBOARD_BODY } from "./support.ts";

let sandbox: Sandbox;
let port: number;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 32, allowedHosts: ["sandbox.test", ".dev.test"] });
  port = sandbox.port;
});
afterAll(() => sandbox.stop());

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request on 127.0.0.1 with exactly these headers (Host included). */
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, method, path, headers, setHost: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

const own = () => ({ host: `127.0.0.1:${port}` });
const EVIL = "http://evil.example";

describe("another origin", () => {
  it("reads nothing from the control API, the log or the dashboard, and gets no CORS headers", async () => {
    await clientFor(sandbox.url, "victim").post("/_sandbox/webhook-endpoints", {
      url: "http://127.0.0.1:9/hooks",
      secret: "whsec_victim",
    });
    for (const [path, accept] of [
      ["/_sandbox/requests", "application/json"],
      ["/_sandbox/webhook-endpoints", "application/json"],
      ["/_sandbox/accounts", "application/json"],
      ["/_sandbox/requests/stream", "text/event-stream"],
      ["/", "text/html"],
      ["/_dashboard/app.js", "*/*"],
    ] as const) {
      const answer = await send("GET", path, { ...own(), origin: EVIL, accept, "x-api-key": "victim" });
      expect(answer.status, path).toBe(403);
      expect(answer.headers["access-control-allow-origin"], path).toBeUndefined();
      expect(JSON.parse(answer.text).detail, path).toContain("answer only their own origin");
      expect(answer.text).not.toContain("whsec_victim");
    }
  });

  it("changes nothing: a preflight, and a form-like POST that needs none, are refused", async () => {
    const preflight = await send("OPTIONS", "/_sandbox/faults", {
      ...own(),
      origin: EVIL,
      "access-control-request-method": "POST",
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    // text/plain: a "simple" request a browser sends without a preflight.
    const fault = JSON.stringify({ operationId: "listCompanies", status: 503 });
    const posted = await send(
      "POST",
      "/_sandbox/faults",
      { ...own(), origin: EVIL, "content-type": "text/plain" },
      fault,
    );
    expect(posted.status).toBe(403);
    const reset = await send("POST", "/_sandbox/reset", { ...own(), origin: "null" });
    expect(reset.status).toBe(403);
    expect((await sandbox.control.GET("/_sandbox/faults")).data!.faults).toEqual([]);
    // Written around, as the router reads it: still the control API's.
    const dotted = await send("POST", "/v1/../_sandbox/reset", { ...own(), origin: EVIL });
    expect(dotted.status).toBe(403);
  });

  it("a request a browser marks as another site's (no Origin: an <img>, a <script>) is refused; following a link is not", async () => {
    const image = await send("GET", "/_sandbox/requests/stream", {
      ...own(),
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "no-cors",
      "sec-fetch-dest": "image",
    });
    expect(image.status).toBe(403);
    const client = clientFor(sandbox.url, "linked");
    const company = await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    const kycPath = new URL(company.body.company.swap.kycUrl).pathname;
    const link = await send("GET", kycPath, {
      ...own(),
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
      accept: "text/html",
    });
    expect(link.status).toBe(200);
    // Posting the page's form from another site is not following a link.
    const forged = await send(
      "POST",
      kycPath,
      { ...own(), origin: EVIL, "content-type": "application/x-www-form-urlencoded" },
      "action=complete",
    );
    expect(forged.status).toBe(403);
  });

  it("its own origin is answered, and the partner API keeps allowing any origin, as Prism does", async () => {
    const mine = await send("GET", "/_sandbox/clock", { ...own(), origin: `http://127.0.0.1:${port}` });
    expect(mine.status).toBe(200);
    expect(mine.headers["access-control-allow-origin"]).toBeUndefined();
    expect(mine.headers["x-content-type-options"]).toBe("nosniff");
    const partner = await send("GET", "/v1/companies", { ...own(), origin: EVIL, "x-api-key": "cors" });
    expect(partner.status).toBe(200);
    expect(partner.headers["access-control-allow-origin"]).toBe("*");
    const preflight = await send("OPTIONS", "/v1/companies", {
      ...own(),
      origin: EVIL,
      "access-control-request-method": "GET",
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("*");
  });
});

describe("the Host header (DNS rebinding)", () => {
  it("a name that is not loopback nor allowed is refused on every path, naming the option", async () => {
    for (const path of ["/v1/companies", "/_sandbox/requests", "/"]) {
      const answer = await send("GET", path, { host: `rebind.evil.example:${port}`, "x-api-key": "victim" });
      expect(answer.status, path).toBe(403);
      expect(JSON.parse(answer.text).detail).toMatch(/--allowed-host rebind\.evil\.example/);
    }
  });

  it("IP addresses, localhost, names under .localhost and the allowed names are answered", async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST.:${port}`,
      `app.localhost:${port}`,
      `[::1]:${port}`,
      `10.0.0.5:${port}`,
      `sandbox.test:${port}`,
      `dev.test`,
      `a.b.dev.test:${port}`,
    ]) {
      const answer = await send("GET", "/_sandbox/clock", { host });
      expect(answer.status, host).toBe(200);
    }
    for (const host of ["sandbox.test.evil.example", "notdev.test", "localhost.evil.example"])
      expect((await send("GET", "/_sandbox/clock", { host })).status, host).toBe(403);
  });

  it("--allowed-host is checked before anything starts: bad input (exit 2) naming it", async () => {
    const run = await runInProcess(sandboxCommand({ name: "partner-api sandbox" }), [
      "--port",
      "0",
      "--allowed-host",
      "ok.test",
      "--allowed-host",
      "http://bad.test/",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--allowed-host must be a host name .* got "http:\/\/bad\.test\/"/);
  });

  it("allowedHosts is checked, naming the bad entry", async () => {
    await expect(startSandbox({ port: 0, allowedHosts: ["ok.test", "bad host"] })).rejects.toThrow(
      /allowedHosts\[1\] must be a host name .* got "bad host"/,
    );
    await expect(startSandbox({ port: 0, allowedHosts: "one.test" as never })).rejects.toThrow(
      /allowedHosts must be an array/,
    );
    expect(hostNameOf("[::1]:4020")).toBe("::1");
    expect(hostNameOf("Sandbox.Test.:80")).toBe("sandbox.test");
    expect(createBoundary("0.0.0.0", [])).toBeDefined();
  });
});

describe("the hosted pages run no script", () => {
  it("redirectUri is any string, as the contract takes it; the page links on only to http(s)", async () => {
    const client = clientFor(sandbox.url, "redirects");
    for (const redirectUri of [
      "javascript:alert(document.domain)",
      "JavaScript:alert(1)",
      "data:text/html,x",
      "vbscript:x",
    ]) {
      const answer = await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"], redirectUri });
      expect(answer.status, redirectUri).toBe(201);
      const id = answer.body.company.id;
      await client.post(`/_sandbox/companies/${id}/kyc-status`, { kycStatus: "approved" });
      const page = await send("GET", new URL(answer.body.company.swap.kycUrl).pathname, {
        ...own(),
        accept: "text/html",
      });
      expect(page.text, redirectUri).toContain('id="continue-refused"');
      expect(page.text.toLowerCase(), redirectUri).not.toContain(`href="${redirectUri.slice(0, 6).toLowerCase()}`);
    }
    const fine = await client.post("/v1/companies", {
      ...ONBOARD_BODY,
      products: ["Swap"],
      redirectUri: "https://partner.example/done",
    });
    expect(fine.status).toBe(201);
  });

  it("are sent with a Content-Security-Policy that allows no script, only their own style and form", async () => {
    const client = clientFor(sandbox.url, "csp");
    const company = await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    const page = await send("GET", new URL(company.body.company.swap.kycUrl).pathname, {
      ...own(),
      accept: "text/html",
    });
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toBe(HOSTED_PAGE_POLICY);
    expect(HOSTED_PAGE_POLICY).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'/);
    expect(page.text).not.toMatch(/<script/i);
  });

  it("never render a link that is not http(s), whatever the state holds", () => {
    const record = {
      company: { id: "01JD8X2K7P3M9Q4R6S8T0V2W4X", name: "<b>Acme</b>", swap: { kycStatus: "approved" } },
    } as unknown as CompanyRecord;
    for (const url of [
      "javascript:alert(1)",
      " javascript:alert(1)",
      "JAVASCRIPT:x",
      "data:text/html,<script>x</script>",
    ]) {
      const html = renderKycPage(record, url);
      expect(html, url).not.toMatch(/href=/);
      expect(html).toContain('id="continue-refused"');
    }
    expect(renderKycPage(record, "https://partner.example/done")).toContain(
      '<a id="continue" href="https://partner.example/done">',
    );
    expect(renderKycPage(record, "https://x.example")).toContain("&#60;b&#62;Acme&#60;/b&#62;");
  });
});
