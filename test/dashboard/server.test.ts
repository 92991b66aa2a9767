/**
 * The dashboard at the sandbox's HTTP edge: a browser asking for / gets the page, its files are served from a
 * fixed list under /_dashboard/, and every other request (an API client's GET /, an unknown file) still gets
 * the API's answer. In-process, on a free port.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acceptsHtml,
  CONTENT_SECURITY_POLICY,
  DASHBOARD_PREFIX,
  openapiFetchModulePath,
  pageDir,
  scalarBundlePath,
} from "../../devkit/src/dashboard/index.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.stop());

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

describe("GET / answers a browser with the page and an API client with the API", () => {
  it("a request that accepts text/html gets the page, with a policy that keeps it on this origin", async () => {
    const response = await fetch(`${sandbox.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    const html = await response.text();
    expect(html).toBe(await readFile(path.join(pageDir, "index.html"), "utf8"));
    expect(html).toContain('<script type="module" src="/_dashboard/app.js"></script>');
  });

  it.each([
    ["no Accept header", {}],
    ["Accept: application/json", { accept: "application/json" }],
    ["Accept: */*", { accept: "*/*" }],
    ["Accept: text/htmlx", { accept: "text/htmlx" }],
  ])("%s gets the API's 404 problem, as before the dashboard", async (_name, headers) => {
    const response = await fetch(`${sandbox.url}/`, { headers });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toMatchObject({ status: 404, title: "No such path" });
  });

  it("POST / with text/html is the API's too (405 or 404, never the page)", async () => {
    const response = await fetch(`${sandbox.url}/`, { method: "POST", headers: { accept: "text/html" } });
    expect(response.headers.get("content-type")).toBe("application/problem+json");
  });

  it("HEAD / from a browser gets the page's headers and no body; a second GET with its ETag gets 304", async () => {
    const head = await fetch(`${sandbox.url}/`, { method: "HEAD", headers: { accept: "text/html" } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const etag = head.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await fetch(`${sandbox.url}/`, { headers: { accept: "text/html", "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});

describe(`the page's files under ${DASHBOARD_PREFIX}`, () => {
  it.each([
    ["app.js", "text/javascript; charset=utf-8"],
    ["app.css", "text/css; charset=utf-8"],
    ["icon.svg", "image/svg+xml"],
  ])("%s is served as %s, byte for byte", async (name, contentType) => {
    const response = await fetch(`${sandbox.url}${DASHBOARD_PREFIX}${name}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(contentType);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(await readFile(path.join(pageDir, name)));
  });

  it("every module the page imports, and those they import, is served (the page has no other source of code)", async () => {
    const names = new Set<string>();
    const queue = ["app.js", "accounts.js", "events.js", "requests.js", "clock.js", "console.js"];
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      if (names.has(name)) continue;
      names.add(name);
      const response = await fetch(`${sandbox.url}${DASHBOARD_PREFIX}${name}`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get("content-type"), name).toBe("text/javascript; charset=utf-8");
      const text = await response.text();
      for (const match of text.matchAll(/(?:from|import\()\s*"\.\/([\w-]+\.js)"/g)) queue.push(match[1]!);
    }
    // The control client's library among them: openapi-fetch's own ES module, as installed.
    expect(names).toContain("openapi-fetch.js");
    expect(names).toContain("format.js");
    const served = await (await fetch(`${sandbox.url}${DASHBOARD_PREFIX}openapi-fetch.js`)).text();
    expect(served).toBe(await readFile(openapiFetchModulePath(), "utf8"));
    expect(served).toMatch(/export \{[^}]*createClient as default/);
  });

  it("Scalar's bundle and the two contracts are served for the console", async () => {
    const scalar = await fetch(`${sandbox.url}${DASHBOARD_PREFIX}scalar.js`);
    expect(scalar.status).toBe(200);
    expect(Number(scalar.headers.get("content-length"))).toBe((await readFile(scalarBundlePath())).length);
    await scalar.arrayBuffer();
    const partner = await (await fetch(`${sandbox.url}${DASHBOARD_PREFIX}openapi.json`)).json();
    expect(partner.info.title).toMatch(/Partner/);
    const control = await (await fetch(`${sandbox.url}${DASHBOARD_PREFIX}sandbox.json`)).json();
    expect(control.paths["/_sandbox/accounts"]).toBeDefined();
  });

  it("index.html, unknown names and paths that climb out are the API's 404, never a file", async () => {
    for (const name of ["index.html", "nope.js", "../index.ts", "..%2Findex.ts", "APP.JS"]) {
      const response = await fetch(`${sandbox.url}${DASHBOARD_PREFIX}${name}`);
      expect(response.status, name).toBe(404);
      expect(response.headers.get("content-type"), name).toBe("application/problem+json");
    }
  });

  it("only GET and HEAD: a POST to a file is the API's answer", async () => {
    const response = await fetch(`${sandbox.url}${DASHBOARD_PREFIX}app.js`, { method: "POST" });
    expect(response.headers.get("content-type")).toBe("application/problem+json");
  });
});

describe("acceptsHtml", () => {
  const request = (method: string, accept?: string) =>
    ({ method, headers: accept === undefined ? {} : { accept } }) as Parameters<typeof acceptsHtml>[0];
  it("is true for GET and HEAD that list text/html, with or without parameters", () => {
    expect(acceptsHtml(request("GET", "text/html"))).toBe(true);
    expect(acceptsHtml(request("HEAD", BROWSER_ACCEPT))).toBe(true);
    expect(acceptsHtml(request("GET", "application/json, text/html;q=0.5"))).toBe(true);
    expect(acceptsHtml(request("GET", "TEXT/HTML"))).toBe(true);
  });
  it("is false for other methods, other types, and no Accept", () => {
    expect(acceptsHtml(request("POST", "text/html"))).toBe(false);
    expect(acceptsHtml(request("GET", "application/json"))).toBe(false);
    expect(acceptsHtml(request("GET", "*/*"))).toBe(false);
    expect(acceptsHtml(request("GET", "text/html-fragment"))).toBe(false);
    expect(acceptsHtml(request("GET"))).toBe(false);
  });
});
