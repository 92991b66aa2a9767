import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCommand } from "partner-api-devkit/cli";
import { afterAll, describe, expect, it } from "vitest";
import { docsPreviewCommand } from "../../scripts/docs-preview.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { runInProcess, runScript } from "../helpers/run.ts";

describe("npm run docs:preview", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("builds the docs when they are missing, serves them, prints the URL and stops cleanly", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "docs-preview-test-"));
    dirs.push(dir);
    let stdout = "";
    let stderr = "";
    let announce: (url: string) => void = () => undefined;
    const announced = new Promise<string>((resolve) => {
      announce = resolve;
    });
    const io = {
      out: (text: string) => {
        stdout += `${text}\n`;
        const match = /Docs preview: (http:\/\/127\.0\.0\.1:\d+\/) \(ready in [^)]+\)/.exec(text);
        if (match) announce(match[1]!);
      },
      err: (text: string) => {
        stderr += `${text}\n`;
      },
    };
    const controller = new AbortController();
    const exited = runCommand(docsPreviewCommand, ["--dir", dir, "--port", "0"], io, controller.signal);
    try {
      const url = await Promise.race([
        announced,
        exited.then((code) => {
          throw new Error(`preview exited with ${code} before printing a URL:\n${stdout}${stderr}`);
        }),
      ]);
      expect(stderr).toContain(`build the docs (${path.relative(repoRoot, path.join(dir, "index.html"))} is missing)`);
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("createPartnerClient");
      expect((await fetch(`${url}openapi.yaml`)).status).toBe(200);
    } finally {
      controller.abort();
    }
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/200 GET \//);
    expect(stderr).toMatch(/✓ preview stopped after/);
  }, 120_000);

  it("names a bad port, host or argument, saying whether it came from an option or DOCS_*", async () => {
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [["--port", "70000"], {}, '--port must be a whole number from 0 to 65535, got "70000"'],
      [["--port=-1"], {}, '--port must be a whole number from 0 to 65535, got "-1"'],
      [
        [],
        { DOCS_HOST: "not a host!" },
        'DOCS_HOST must be an IP address or a host name (e.g. 127.0.0.1 or localhost), got "not a host!"',
      ],
      [["--open"], {}, "Unknown option '--open'"],
      [["--dir="], {}, "--dir needs a folder, got an empty value"],
      [["--sandbox", "ftp://127.0.0.1:4021"], {}, "--sandbox must be a port (1 to 65535) or an http(s) address"],
      [["--sandbox", "70000"], {}, '--sandbox must be a whole number from 1 to 65535, got "70000"'],
      [[], { SANDBOX_PORT: "sandbox" }, "SANDBOX_PORT must be a port (1 to 65535) or an http(s) address"],
    ];
    const saved = { ...process.env };
    try {
      for (const [argv, env, message] of cases) {
        Object.assign(process.env, env);
        const run = await runInProcess(docsPreviewCommand, argv);
        expect(run.code, argv.join(" ")).toBe(2);
        expect(run.stderr).toContain(message);
        for (const name of Object.keys(env)) delete process.env[name];
      }
    } finally {
      process.env = saved;
    }
  });

  it("--help lists the options and the environment variables", async () => {
    const run = await runInProcess(docsPreviewCommand, ["--help"]);
    expect(run.code).toBe(0);
    for (const text of ["--port", "--host", "--dir", "--build", "DOCS_PORT", "DOCS_HOST"])
      expect(run.stdout).toContain(text);
  });

  it("exits 2 as a process when DOCS_PORT is not a port", () => {
    const run = runScript("docs-preview.ts", [], { env: { DOCS_PORT: "abc" } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('DOCS_PORT must be a whole number from 0 to 65535, got "abc"');
  });
});
