/**
 * Every page of the built docs and every view of the sandbox dashboard, in headless Chromium at a phone's width
 * (390 px) and a desktop's (1400 px), checked by element boxes (test/helpers/layout-boxes.ts): the document does
 * not scroll sideways, nothing of the main content is cut by an ancestor that hides its overflow, no link, button
 * or heading lies over another (or a button over a line of code), no heading breaks a word. Slow: it builds the
 * docs and starts Chromium (slow: its name says so).
 */
import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCommand } from "partner-api-devkit/cli";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { docsPreviewCommand } from "../../scripts/docs-preview.ts";
import { chromiumPath, hasChromium, launchChromium } from "../../scripts/lib/chromium.ts";
import { buildDocs } from "../../scripts/lib/docs/build.ts";
import { TRY_IT_PAGE } from "../../scripts/lib/docs/pages.ts";
import { type StaticServer, serveStatic } from "../../scripts/lib/docs/server.ts";
import { layoutProblems } from "../helpers/layout-boxes.ts";

const WIDTHS = [390, 1400] as const;
const DASHBOARD_VIEWS = ["Accounts", "Events", "Requests", "Clock & faults", "Console"];
const available = hasChromium();
if (!available) console.warn(`[layout test] SKIPPED: no Chromium at ${chromiumPath()}`);

/** Every HTML page under a folder, relative to it. */
function htmlPages(dir: string, under = ""): string[] {
  return readdirSync(path.join(dir, under), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(under, entry.name);
    if (entry.isDirectory()) return htmlPages(dir, file);
    return entry.name.endsWith(".html") ? [file] : [];
  });
}

/** The built docs, their server, the sandbox and the browser: set up once by the describe's beforeAll. */
let out: string;
let server: StaticServer;
let sandbox: Sandbox;
let browser: Browser;

async function open(width: number): Promise<Page> {
  return browser.newPage({ viewport: { width, height: 900 } });
}

/** The check itself, and every page of the docs at both widths. */
function docsPages(): void {
  it("the check fails on a page that overflows, clips, overlaps or breaks a heading's word", async () => {
    const page = await open(390);
    try {
      await page.setContent(`<main>
        <h1 style="width:120px;overflow-wrap:anywhere">Onboarding Transactions</h1>
        <div style="overflow:hidden;width:100px"><button style="width:300px">Send</button></div>
        <a href="#a" style="position:relative">first</a><a href="#b" style="position:relative;left:-20px">second</a>
        <div style="position:relative"><pre>line one of the code</pre><button style="position:absolute;top:0;left:0">Copy</button></div>
        <div style="position:relative"><pre>hover line</pre><button style="position:absolute;top:0;left:0;opacity:0">Copy</button></div>
        <div style="width:600px">wide</div></main>`);
      const problems = (await layoutProblems(page, { main: "main" })).join("\n");
      expect(problems).toMatch(/the document scrolls sideways: 6\d\d px wide in a 390 px viewport/);
      expect(problems).toMatch(/<button> "Send" is cut by \d+ px at the edge of <div>/);
      expect(problems).toMatch(/<a> "first" and <a> "second" overlap/);
      expect(problems).toMatch(/<button> "Copy" covers code "line one of the code"/);
      expect(problems).toMatch(/<button> "Copy" covers code "hover line"/);
      expect(problems).toMatch(/breaks the word "Onboarding" across lines/);
      // Text for screen readers only, and a box the reader scrolls, are not cut.
      await page.setContent(`<main><span style="position:absolute;width:1px;height:1px;overflow:hidden">Open menu</span>
        <div style="overflow-x:auto;width:100px"><table><tr><td>a very long cell of a wide table</td></tr></table></div></main>`);
      expect(await layoutProblems(page, { main: "main" })).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("reads a page once its layout has settled: links drawn on top of one another, then moved apart, do not overlap", async () => {
    const page = await open(1400);
    try {
      // Two links in the same place, the second moved below the first a step a frame (as a menu laid out in steps
      // on a loaded machine), about 300 ms after the page is there.
      await page.setContent(`<main><a href="#a" style="position:absolute;top:0">first</a>
        <a id="b" href="#b" style="position:absolute;top:0">second</a></main>
        <script>let step = 0; const move = () => { document.getElementById("b").style.top = (++step * 2) + "px";
          if (step < 20) setTimeout(() => requestAnimationFrame(move), 15); }; requestAnimationFrame(move);</script>`);
      expect(await layoutProblems(page, { main: "main" })).toEqual([]);
      expect(await page.evaluate(() => document.getElementById("b")!.style.top)).toBe("40px");
    } finally {
      await page.close();
    }
  });

  it("every page of the docs", async () => {
    const pages = htmlPages(out);
    expect(pages).toEqual(expect.arrayContaining(["index.html", "errors.html", "changelog.html", TRY_IT_PAGE.file]));
    const problems: string[] = [];
    for (const width of WIDTHS) {
      const page = await open(width);
      try {
        for (const file of pages) {
          await page.goto(`${server.url}/${file}`, { waitUntil: "load" });
          // Redoc's pages render into .api-content. Try it is Scalar's console in #try-it: its widgets are Scalar's
          // (a group's toggle button drawn over the group's link, by design); the page around it is checked.
          const scalar = file === TRY_IT_PAGE.file;
          if (!scalar) await page.locator(".api-content").first().waitFor({ timeout: 60_000 });
          else await page.locator("#try-it *").first().waitFor({ timeout: 60_000 });
          const found = await layoutProblems(
            page,
            scalar ? { main: "body", ignore: "#try-it" } : { main: ".api-content" },
          );
          problems.push(...found.map((problem) => `${file} at ${width} px: ${problem}`));
        }
      } finally {
        await page.close();
      }
    }
    expect(problems.join("\n")).toBe("");
  }, 300_000);
}

/** Full-width pages, and where Try it looks for the sandbox. */
function docsDetails(): void {
  it("Errors and Changelog use the whole width beside the sidebar at 1400 px", async () => {
    const page = await open(1400);
    try {
      for (const file of ["errors.html", "changelog.html"]) {
        await page.goto(`${server.url}/${file}`, { waitUntil: "load" });
        await page.locator(".api-content").first().waitFor({ timeout: 60_000 });
        const share = await page.evaluate(() => {
          const content = document.querySelector(".api-content")!.getBoundingClientRect().width;
          const text = document.querySelector(".api-content p")!.getBoundingClientRect().width;
          return text / content;
        });
        // Redoc's two-panel layout gives text about 40 % of it (450 px at 1400 px).
        expect(share, file).toBeGreaterThan(0.75);
      }
    } finally {
      await page.close();
    }
  }, 120_000);

  it("Try it looks for the sandbox where docs:preview was told, not only at 127.0.0.1:4020", async () => {
    const io = { out: (text: string) => void output.push(text), err: (text: string) => void output.push(text) };
    const output: string[] = [];
    const controller = new AbortController();
    const exited = runCommand(
      docsPreviewCommand,
      ["--dir", out, "--port", "0", "--sandbox", String(new URL(sandbox.url).port)],
      io,
      controller.signal,
    );
    const page = await open(1400);
    try {
      await expect.poll(() => output.join("\n"), { timeout: 30_000 }).toMatch(/Docs preview: (\S+)/);
      const preview = /Docs preview: (\S+)/.exec(output.join("\n"))![1]!;
      expect(output.join("\n")).toContain(
        `Try it: ${preview}${TRY_IT_PAGE.file} looks for the sandbox at ${sandbox.url}`,
      );
      await page.goto(`${preview}${TRY_IT_PAGE.file}`, { waitUntil: "load" });
      await page
        .getByText(`Requests go to your local sandbox at ${sandbox.url} (it answers)`)
        .waitFor({ timeout: 30_000 });
      // Served by another server (no try-config.json), the page looks at the default address.
      await page.goto(`${server.url}/${TRY_IT_PAGE.file}`, { waitUntil: "load" });
      await page
        .getByText(
          /No sandbox answers at http:\/\/127\.0\.0\.1:4020|Requests go to your local sandbox at http:\/\/127\.0\.0\.1:4020/,
        )
        .waitFor({ timeout: 30_000 });
    } finally {
      await page.close();
      controller.abort();
      expect(await exited).toBe(0);
    }
  }, 120_000);
}

/** The sandbox dashboard's views. */
function dashboardViews(): void {
  it("every view of the sandbox dashboard", async () => {
    const problems: string[] = [];
    for (const width of WIDTHS) {
      const page = await open(width);
      try {
        await page.goto(`${sandbox.url}/`, { waitUntil: "load" });
        for (const name of DASHBOARD_VIEWS) {
          await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name }).click();
          const section = page.locator("main section[data-view]:visible");
          await section.first().waitFor();
          if (name === "Console") await page.locator("#console-root").waitFor();
          else await section.locator("table, form, details").first().waitFor();
          // Every table open.
          const closed = section.locator("details:not([open]) > summary");
          for (let opened = 0; opened < 20 && (await closed.count()) > 0; opened++) await closed.first().click();
          // Scalar's console has its own check (test/dashboard/browser.test.ts); the page around it is checked.
          const found = await layoutProblems(page, { main: "main", ignore: "#console-root" });
          problems.push(...found.map((problem) => `dashboard ${name} at ${width} px: ${problem}`));
        }
      } finally {
        await page.close();
      }
    }
    expect(problems.join("\n")).toBe("");
  }, 300_000);

  it("at 390 px the console's request client keeps Send on screen", async () => {
    const page = await open(390);
    try {
      await page.goto(`${sandbox.url}/`, { waitUntil: "load" });
      await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Console" }).click();
      await page.evaluate(() => (window.location.hash = "#/console/partner-api/tag/companies/GET/v1/companies"));
      const testRequest = page
        .getByRole("button", { name: /Test Request/ })
        .filter({ visible: true })
        .first();
      await testRequest.waitFor({ timeout: 60_000 });
      await testRequest.scrollIntoViewIfNeeded();
      await testRequest.click();
      const send = page.getByRole("dialog").getByRole("button", { name: /^Send/ }).first();
      await send.waitFor();
      const box = (await send.boundingBox())!;
      expect(box.x, "Send's left edge").toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, "Send's right edge").toBeLessThanOrEqual(390);
    } finally {
      await page.close();
    }
  }, 120_000);
}

describe.skipIf(!available)("pages that fit, at 390 px and 1400 px", () => {
  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), "docs-layout-test-"));
    await buildDocs({ outDir: out, screenshots: false });
    server = await serveStatic(out);
    // A dashboard with something in every table: companies with routes, deposits, cards, events and calls.
    sandbox = await startSandbox({
      port: 0,
      seed: 3,
      frozen: true,
      startTime: "2026-11-24T09:00:00Z",
      scenarios: ["company-with-onramp-and-deposits", "card-issued"],
    });
    browser = await launchChromium();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
    await server?.close();
    if (out) await rm(out, { recursive: true, force: true });
  });

  docsPages();
  docsDetails();
  dashboardViews();
});
