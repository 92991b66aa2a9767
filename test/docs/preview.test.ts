import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseHost, parsePort } from "../../scripts/lib/docs/options.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { runScript } from "../helpers/run.ts";

describe("parsePort() and parseHost()", () => {
  it("accepts ports 0 to 65535 and loopback or IP hosts", () => {
    expect(parsePort("0", "DOCS_PORT")).toBe(0);
    expect(parsePort(" 4020 ", "DOCS_PORT")).toBe(4020);
    expect(parseHost("127.0.0.1", "DOCS_HOST")).toBe("127.0.0.1");
    expect(parseHost("::1", "DOCS_HOST")).toBe("::1");
    expect(parseHost("localhost", "DOCS_HOST")).toBe("localhost");
  });
  it("names the setting and the bad value", () => {
    expect(() => parsePort("http", "DOCS_PORT")).toThrow(
      'DOCS_PORT must be a port number from 0 to 65535 (0 picks a free port), got "http"',
    );
    expect(() => parsePort("70000", "--port")).toThrow(/--port must be a port number/);
    expect(() => parsePort("-1", "--port")).toThrow(/--port must be a port number/);
    expect(() => parseHost("example.com", "DOCS_HOST")).toThrow(
      'DOCS_HOST must be an IP address or "localhost", got "example.com"',
    );
  });
});

describe("npm run docs:preview", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("builds the docs when they are missing, serves them, prints the URL and stops cleanly", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "docs-preview-test-"));
    dirs.push(dir);
    const child = spawn(
      process.execPath,
      [
        path.join(repoRoot, "node_modules/tsx/dist/cli.mjs"),
        path.join(repoRoot, "scripts/docs-preview.ts"),
        "--dir",
        dir,
      ],
      {
        cwd: repoRoot,
        env: { ...process.env, DOCS_PORT: "0" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL within 90 s; output:\n${stdout}${stderr}`)), 90_000);
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /Docs preview: (http:\/\/127\.0\.0\.1:\d+\/) \(ready in [^)]+\)/.exec(stdout);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        void exited.then((code) =>
          reject(new Error(`preview exited with ${code} before printing a URL:\n${stdout}${stderr}`)),
        );
      });
      expect(stderr).toContain(`build the docs (${path.relative(repoRoot, path.join(dir, "index.html"))} is missing)`);
      const response = await fetch(url);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain("createPartnerClient");
      expect((await fetch(`${url}openapi.yaml`)).status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/200 GET \//);
    expect(stderr).toMatch(/✓ preview stopped after/);
  }, 120_000);

  it("exits 2 naming a bad DOCS_PORT or argument", () => {
    const badPort = runScript("docs-preview.ts", [], { env: { DOCS_PORT: "abc" } });
    expect(badPort.status).toBe(2);
    expect(badPort.stderr).toContain(
      'DOCS_PORT must be a port number from 0 to 65535 (0 picks a free port), got "abc"',
    );
    const badArg = runScript("docs-preview.ts", ["--open"]);
    expect(badArg.status).toBe(2);
    expect(badArg.stderr).toContain('unknown argument "--open"');
  });
});
