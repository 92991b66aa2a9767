/**
 * PNGs of the built reference, taken in headless Chromium from the page on disk: its first page and
 * one operation, so a reviewer sees the published page without serving it. Every request that is
 * not a file of the page is blocked, as the page must render offline.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromiumPath, launchChromium } from "../chromium.ts";

/** The operation the second screenshot shows, by Redoc's anchor (`#/<tag>/<operationId>`, lower case). */
export const SCREENSHOT_OPERATION = { anchor: "#/cards/createcard", summary: "Create a card" };

export const SCREENSHOT_FILES = { firstPage: "screenshot-reference.png", operation: "screenshot-create-card.png" };

export type ScreenshotResult = { taken: string[]; skipped?: undefined } | { taken: []; skipped: string };

/** Writes the two PNGs beside `indexPath`; skips, saying why, when there is no Chromium. */
export async function takeScreenshots(indexPath: string, title: string): Promise<ScreenshotResult> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath))
    return {
      taken: [],
      skipped: `no Chromium at ${executablePath} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
    };
  const outDir = path.dirname(indexPath);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.route("**/*", (route) =>
      route.request().url().startsWith("file:") ? route.continue() : route.abort("blockedbyclient"),
    );
    await page.goto(pathToFileURL(indexPath).href, { waitUntil: "load" });
    // Redoc has rendered when the title heading of the API is on screen.
    await page.locator("h1", { hasText: title }).first().waitFor({ state: "visible", timeout: 30_000 });
    const firstPage = path.join(outDir, SCREENSHOT_FILES.firstPage);
    await page.screenshot({ path: firstPage });
    await page.evaluate((hash) => {
      window.location.hash = hash;
    }, SCREENSHOT_OPERATION.anchor);
    await page
      .locator("h2", { hasText: SCREENSHOT_OPERATION.summary })
      .first()
      .waitFor({ state: "visible", timeout: 30_000 });
    // Redoc scrolls to the anchor; a moment lets it settle so the heading is at the top of the shot.
    await page.waitForTimeout(300);
    const operation = path.join(outDir, SCREENSHOT_FILES.operation);
    await page.screenshot({ path: operation });
    return { taken: [firstPage, operation] };
  } finally {
    await browser.close();
  }
}
