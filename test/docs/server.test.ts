import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveInside, type StaticServer, serveStatic } from "../../scripts/lib/docs/server.ts";

describe("resolveInside()", () => {
  const root = path.resolve("/srv/docs");
  it("maps request paths to files inside the root, with index.html for folders", () => {
    expect(resolveInside(root, "/")).toBe(path.join(root, "index.html"));
    expect(resolveInside(root, "/openapi.yaml?x=1#frag")).toBe(path.join(root, "openapi.yaml"));
    expect(resolveInside(root, "/a%20b/")).toBe(path.join(root, "a b", "index.html"));
  });
  it("never leaves the root", () => {
    for (const bad of ["/../secret", "/%2e%2e/secret", "/a/../../secret", "/..%2fsecret"]) {
      const file = resolveInside(root, bad);
      expect(file === undefined || file.startsWith(root + path.sep), bad).toBe(true);
    }
    expect(resolveInside(root, "/%zz")).toBeUndefined();
    expect(resolveInside(root, "/a%00b")).toBeUndefined();
  });
});

describe("serveStatic()", () => {
  let dir: string;
  let server: StaticServer;
  const seen: string[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "docs-server-test-"));
    await mkdir(path.join(dir, "site"));
    await writeFile(path.join(dir, "site", "index.html"), "<h1>hello</h1>");
    await writeFile(path.join(dir, "site", "openapi.json"), "{}");
    await writeFile(path.join(dir, "outside.txt"), "secret");
    server = await serveStatic(path.join(dir, "site"), {
      onRequest: (r) => seen.push(`${r.status} ${r.method} ${r.path}`),
    });
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("listens on loopback, on a free port", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(server.port).toBeGreaterThan(0);
  });

  it("serves files with their content type", async () => {
    const index = await fetch(server.url);
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await index.text()).toBe("<h1>hello</h1>");
    const json = await fetch(`${server.url}openapi.json`);
    expect(json.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("answers 404 for missing files, 405 for other methods, and never serves outside its folder", async () => {
    expect((await fetch(`${server.url}nope.html`)).status).toBe(404);
    expect((await fetch(server.url, { method: "POST" })).status).toBe(405);
    const escaped = await fetch(`${server.url}..%2foutside.txt`);
    expect(escaped.status).not.toBe(200);
    expect(await escaped.text()).not.toContain("secret");
    expect(seen).toContain("404 GET /nope.html");
  });

  it("serves files given in memory before those on disk, by their path only", async () => {
    const generated = await serveStatic(dir, {
      files: { "try-config.json": { body: '{"sandbox":"http://127.0.0.1:4021"}', type: "application/json" } },
    });
    try {
      const config = await fetch(`${generated.url}try-config.json?x=1`);
      expect(config.headers.get("content-type")).toBe("application/json");
      expect(await config.json()).toEqual({ sandbox: "http://127.0.0.1:4021" });
      expect((await fetch(`${generated.url}toString`)).status).toBe(404);
      expect((await fetch(`${server.url}try-config.json`)).status).toBe(404);
    } finally {
      await generated.close();
    }
  });

  it("refuses to serve a folder that does not exist, naming it", async () => {
    await expect(serveStatic(path.join(dir, "missing"))).rejects.toThrow(
      /cannot serve .*missing: it is not a directory/,
    );
  });
});
