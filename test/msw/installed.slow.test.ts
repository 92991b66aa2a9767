/**
 * partner-api-devkit/msw where partners use it: `npm pack` the client and the devkit, install both with MSW,
 * Vitest and esbuild in a fresh project outside this repository, then run the guide's two examples as written
 * (docs/partners.md, "The sandbox in unit and browser tests"): the Vitest file with `setupServer` (the whole
 * onboarding with Swap to signed webhooks, the ledger and a card), with no port opened in its process; and the
 * browser module with `setupWorker`, bundled by esbuild (so through the devkit's browser build) and opened in
 * headless Chromium, MSW's worker script copied from the msw package by `npx msw init`.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hasChromium, launchChromium } from "../../scripts/lib/chromium.ts";
import { MSW_EXAMPLES, markdownTypeScriptBlocks } from "../../scripts/lib/docs/snippets.ts";
import { partnersGuidePath, repoRoot } from "../../scripts/lib/paths.ts";
import { typecheckModules } from "../../scripts/lib/typecheck.ts";
import { type Packed, packPackages } from "../helpers/build-lock.ts";

const run = promisify(execFile);

/** The environment for a nested npm: without the npm_* variables of an enclosing `npm test`. */
const npmEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || /^npm_config_(cache|registry)$/i.test(key)),
);

async function inApp(command: string, args: string[], cwd: string, timeout = 180_000): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env: npmEnv, encoding: "utf8", timeout });
    return stdout + stderr;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

/** The guide's example block of that name, as written. */
function exampleBlock(name: string) {
  const blocks = markdownTypeScriptBlocks(readFileSync(partnersGuidePath, "utf8"), "partners", "docs/partners.md");
  const block = blocks.find((each) => each.name === name);
  if (!block) throw new Error(`docs/partners.md has no TypeScript block ${name}`);
  return block;
}
const example = (name: string): string => exampleBlock(name).source;

const manifest = (file: string) =>
  JSON.parse(readFileSync(path.join(repoRoot, file), "utf8")) as { devDependencies: Record<string, string> };

/** Records every `listen` of a server in the test's process (the handlers must open none). */
const NO_LISTEN_SETUP = `import net from "node:net";
import { writeFileSync } from "node:fs";
import { afterAll } from "vitest";
const listened = [];
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  listened.push(JSON.stringify(args.filter((arg) => typeof arg !== "function")));
  return listen.apply(this, args);
};
afterAll(() => writeFileSync("listened.json", JSON.stringify(listened)));
`;

describe("partner-api-devkit/msw in a fresh project, as the guide says", () => {
  let work: string;
  let app: string;

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), "partner-api-msw-"));
    app = path.join(work, "partner-app");
    mkdirSync(app);
    const packed = await packPackages(work, (args, cwd) => inApp("npm", args, cwd));
    const tarball = (which: Packed) => path.join(work, which.filename);
    const root = manifest("package.json").devDependencies;
    writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify({
        name: "partner-app",
        private: true,
        type: "module",
        dependencies: { "partner-api-client": `file:${tarball(packed.client)}` },
        devDependencies: {
          "partner-api-devkit": `file:${tarball(packed.devkit)}`,
          msw: manifest("devkit/package.json").devDependencies.msw,
          vitest: root.vitest,
          esbuild: root.esbuild,
        },
      }),
    );
    await inApp("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], app, 400_000);
  }, 600_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("both examples compile against the installed packages", async () => {
    const errors = await typecheckModules([exampleBlock(MSW_EXAMPLES.vitest), exampleBlock(MSW_EXAMPLES.browser)], {
      installedIn: app,
    });
    expect(errors.map((error) => `${error.where} ${error.message}`)).toEqual([]);
  }, 120_000);

  test("the Vitest example passes with setupServer, and its process opens no port", async () => {
    writeFileSync(path.join(app, "onboarding.test.ts"), example(MSW_EXAMPLES.vitest));
    writeFileSync(path.join(app, "no-listen.js"), NO_LISTEN_SETUP);
    writeFileSync(
      path.join(app, "vitest.config.js"),
      'import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { setupFiles: ["./no-listen.js"] } });\n',
    );
    const output = await inApp("npx", ["vitest", "run", "onboarding.test.ts"], app);
    expect(output).toMatch(/1 passed/);
    expect(JSON.parse(readFileSync(path.join(app, "listened.json"), "utf8"))).toEqual([]);
  }, 180_000);

  test.skipIf(!hasChromium())(
    "the browser example runs in Chromium through setupWorker and the devkit's browser build",
    async () => {
      const publicDir = path.join(app, "public");
      mkdirSync(publicDir);
      writeFileSync(path.join(app, "page.ts"), example(MSW_EXAMPLES.browser));
      await inApp("npx", ["msw", "init", "public/", "--no-save"], app);
      const bundled = await inApp(
        "npx",
        ["esbuild", "page.ts", "--bundle", "--format=esm", "--platform=browser", "--outfile=public/page.js"],
        app,
      );
      expect(bundled).not.toMatch(/error/i);
      writeFileSync(
        path.join(publicDir, "index.html"),
        '<!doctype html><meta charset="utf-8"><title>sandbox</title><script type="module" src="/page.js"></script>',
      );
      const files = new Map([
        ["/", ["index.html", "text/html"]],
        ["/page.js", ["page.js", "text/javascript"]],
        ["/mockServiceWorker.js", ["mockServiceWorker.js", "text/javascript"]],
      ]);
      const server: Server = createServer((request, response) => {
        const file = files.get(new URL(request.url ?? "/", "http://x").pathname);
        if (!file) {
          response.writeHead(404).end();
          return;
        }
        response.writeHead(200, { "content-type": file[1]! }).end(readFileSync(path.join(publicDir, file[0]!)));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      let browser: Browser | undefined;
      try {
        browser = await launchChromium();
        const page = await browser.newPage();
        const lines: string[] = [];
        const errors: string[] = [];
        page.on("console", (message) => lines.push(message.text()));
        page.on("pageerror", (error) => errors.push(error.message));
        const served: string[] = [];
        page.on("request", (request) => served.push(request.url()));
        await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        const deadline = Date.now() + 60_000;
        while (!lines.some((line) => line.startsWith("card ")) && errors.length === 0 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect(errors).toEqual([]);
        expect(lines).toContain(
          "webhooks company.kyc_link.issued company.kyc_status_changed payment_route.created payment_route.transaction.created",
        );
        expect(lines).toContain("deposit Credit 125.5 ledger 1");
        expect(lines).toContain("card Active");
        // The page's calls to the sandbox went to the worker, never to a server.
        expect(served.filter((url) => url.startsWith("https://sandbox.partner-api.invalid/")).length).toBeGreaterThan(
          5,
        );
      } finally {
        await browser?.close();
        await new Promise((resolve) => server.close(resolve));
      }
    },
    180_000,
  );
});
