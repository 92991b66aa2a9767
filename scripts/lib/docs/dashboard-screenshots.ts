/**
 * PNGs of the sandbox dashboard for the docs: a sandbox started in-process with a fixed seed and start time,
 * brought to a state worth showing (a company onboarded with Swap and approved, a webhook receiver with
 * delivered events, a card being issued, a 503 fault that struck a call), then each view in headless
 * Chromium with every request to another host blocked, as the page must work offline.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { startSandbox } from "partner-api-devkit/sandbox";
import type { Page } from "playwright-core";
import { hasChromium, launchChromium } from "../chromium.ts";

/** One PNG per view, by the view's name in the page's hash (`#/accounts`…). */
export const DASHBOARD_SCREENSHOTS = {
  accounts: "dashboard-accounts.png",
  events: "dashboard-events.png",
  requests: "dashboard-requests.png",
  clock: "dashboard-clock.png",
  console: "dashboard-console.png",
} as const;

export type DashboardView = keyof typeof DASHBOARD_SCREENSHOTS;

/** What each view shows once it has its data: the screenshot waits for it. */
const READY: Record<DashboardView, (page: Page) => Promise<unknown>> = {
  accounts: (page) => page.getByRole("heading", { name: "Acme Robotics Inc." }).waitFor(),
  events: (page) => page.locator('details[data-type="company.kyc_status_changed"]').first().waitFor(),
  requests: (page) => page.locator('tr[data-status="503"]').first().waitFor(),
  clock: (page) => page.locator("tr[data-fault]").first().waitFor(),
  console: (page) =>
    page
      .getByRole("heading", { name: /Partner Card/ })
      .first()
      .waitFor({ timeout: 60_000 }),
};

export const SHOWCASE_API_KEY = "sk_docs_showcase";

/** Brings a fresh sandbox to the state the screenshots show. */
async function seedShowcase(url: string, receiverUrl: string): Promise<void> {
  const call = async (method: string, target: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(url + target, {
      method,
      headers: {
        "X-API-Key": SHOWCASE_API_KEY,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok && response.status !== 503)
      throw new Error(`dashboard screenshots: ${method} ${target} answered ${response.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  await call("POST", "/_sandbox/webhook-endpoints", { url: receiverUrl, secret: "whsec_docs" });
  const { company } = await call("POST", "/v1/companies", {
    name: "Acme Robotics Inc.",
    countryCode: "US",
    directorName: "Maria Garcia",
    directorEmail: "maria.garcia@acme-robotics.example",
    directorPhone: "+14155550123",
    addressLine1: "500 Market Street",
    city: "San Francisco",
    state: "CA",
    postalCode: "94105",
    products: ["Card", "Swap"],
  });
  await call("POST", `/_sandbox/companies/${company.id}/kyc-status`, { kycStatus: "approved" });
  await call("POST", `/_sandbox/companies/${company.id}/terms-acceptance`, { tosAccepted: true });
  const route = await call("POST", `/_sandbox/companies/${company.id}/payment-routes`, { type: "onramp" });
  await call("POST", `/_sandbox/payment-routes/${route.paymentRoute.id}/deposits`, { amount: 250 });
  const { cardHolders } = await call("GET", `/_sandbox/companies/${company.id}/card-holders`);
  await call(
    "POST",
    "/v1/cards",
    { cardHolderId: cardHolders[0].id, name: "Travel card", category: "Other", bin: "45671234" },
    { "X-Company-Id": company.id },
  );
  await call("POST", "/_sandbox/faults", { operationId: "listCardBins", status: 503, retryAfter: 2 });
  await call("GET", "/v1/card-bins", undefined, { "X-Company-Id": company.id });
  await call("GET", "/v1/cards", undefined, { "X-Company-Id": company.id });
  await call("POST", "/_sandbox/clock/advance", { seconds: 0 });
}

export type DashboardScreenshotResult = { taken: string[]; skipped?: undefined } | { taken: []; skipped: string };

/** Writes one PNG per view into `outDir`; skips, saying why, when there is no Chromium. */
export async function takeDashboardScreenshots(outDir: string): Promise<DashboardScreenshotResult> {
  if (!hasChromium()) return { taken: [], skipped: "no Chromium (apt-get install -y chromium, or set CHROMIUM_PATH)" };
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  const sandbox = await startSandbox({ port: 0, seed: 1, frozen: true, startTime: "2026-11-24T09:30:00Z" });
  const browser = await launchChromium();
  try {
    await seedShowcase(sandbox.url, receiverUrl);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.route("**/*", (route) =>
      route.request().url().startsWith(`${sandbox.url}/`) ? route.continue() : route.abort("blockedbyclient"),
    );
    const taken: string[] = [];
    for (const [view, file] of Object.entries(DASHBOARD_SCREENSHOTS) as [DashboardView, string][]) {
      await page.goto(`${sandbox.url}/#/${view}`, { waitUntil: "load" });
      await READY[view](page);
      if (view === "events")
        await page.locator('details[data-type="company.kyc_status_changed"] > summary').first().click();
      // Live views draw in batches a few times a second: a moment lets the last batch land.
      await page.waitForTimeout(400);
      const target = path.join(outDir, file);
      await page.screenshot({ path: target });
      taken.push(target);
    }
    return { taken };
  } finally {
    await browser.close();
    await sandbox.stop();
    await new Promise<void>((resolve) => {
      receiver.closeAllConnections();
      receiver.close(() => resolve());
    });
  }
}
