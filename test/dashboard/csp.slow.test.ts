/**
 * The dashboard under its own Content-Security-Policy (dashboard/index.ts: scripts from its origin only, no
 * eval): every view opened in Chromium, every `securitypolicyviolation` the page raises collected. The Console
 * view logged one (`script-src eval`): Scalar's bundled Zod probes whether `Function("")` may run; the console
 * sets Zod's `jitless` first, so nothing asks. Slow (its name says so): starts Chromium.
 */

import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VIEW_NAMES } from "../../devkit/src/dashboard/page/routes.js";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { chromiumPath, hasChromium, launchChromium } from "../../scripts/lib/chromium.ts";

const available = hasChromium();
if (!available) console.warn(`[dashboard CSP test] SKIPPED: no Chromium at ${chromiumPath()}`);

describe.runIf(available)("the dashboard under its CSP", () => {
  let sandbox: Sandbox;
  let browser: Browser;
  let page: Page;
  const violations: string[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 13, frozen: true, startTime: "2026-11-24T09:00:00Z" });
    expect((await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": "csp-key" } })).status).toBe(200);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.exposeFunction("reportViolation", (text: string) => violations.push(text));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        (window as unknown as { reportViolation(text: string): void }).reportViolation(
          `${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`,
        );
      });
    });
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(`console: ${message.text()}`);
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  it("every view opens without a CSP violation", async () => {
    await page.goto(`${sandbox.url}/`, { waitUntil: "load" });
    for (const name of VIEW_NAMES) {
      await page.evaluate((hash) => {
        location.hash = hash;
      }, `#/${name}`);
      if (name === "console") {
        // Scalar rendered the reference (its bundle loaded, its configuration parsed) and a search was typed.
        await page
          .locator("#console-root .scalar-app, #console-root [class*='scalar']")
          .first()
          .waitFor({ timeout: 60_000 });
        await page
          .getByText("listCompanies", { exact: false })
          .first()
          .waitFor({ timeout: 30_000 })
          .catch(() => undefined);
      }
      await page.waitForTimeout(500);
    }
    expect(violations).toEqual([]);
  }, 120_000);
});
