/**
 * The sandbox dashboard in headless Chromium, as a partner uses it (slow: a browser, Scalar's bundle; kept in
 * its own file). Onboards a company with Swap from the console, approves its KYC with the button, sees
 * company.kyc_link.issued and company.kyc_status_changed with their delivery attempts, adds a 503 fault and
 * sees the next request fail in the log, advances the clock and sees a card turn Active; light and dark, a
 * name on every control, the main action by keyboard. Any request the page makes to another host fails it.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { accountFingerprint } from "../../devkit/src/sandbox/testmode/log.ts";
import { chromiumPath, hasChromium, launchChromium } from "../../scripts/lib/chromium.ts";
import { type Receiver, startReceiver } from "../../scripts/lib/receiver.ts";
import { type NetworkWatch, watchNetwork } from "../helpers/network.ts";

const available = hasChromium();
if (!available)
  console.warn(`[dashboard browser test] SKIPPED: no Chromium at ${chromiumPath()} (apt-get install -y chromium)`);

const API_KEY = "sk_dashboard_browser";
const FINGERPRINT = accountFingerprint(API_KEY);

/** Controls of the page's own views that a screen reader could not name. */
function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const unnamed: string[] = [];
    for (const element of document.querySelectorAll("main button, main input, main select, header select")) {
      if (element.closest("#console-root")) continue;
      const control = element as HTMLInputElement;
      const name =
        control.getAttribute("aria-label") ||
        (control.labels && control.labels.length > 0 ? [...control.labels].map((l) => l.textContent).join(" ") : "") ||
        (element.tagName === "BUTTON" ? element.textContent : "");
      if (!name?.trim()) unnamed.push(element.outerHTML.slice(0, 120));
    }
    return unnamed;
  });
}

const view = (page: Page, name: string) => page.getByRole("navigation", { name: "Views" }).getByRole("link", { name });

describe.skipIf(!available)("the sandbox dashboard in headless Chromium, offline", () => {
  let receiver: Receiver;
  let sandbox: Sandbox;
  let browser: Browser;
  let page: Page;
  let seen: NetworkWatch;
  let companyId = "";

  beforeAll(async () => {
    receiver = await startReceiver([200]);
    sandbox = await startSandbox({ port: 0, seed: 11, frozen: true, startTime: "2026-11-24T09:00:00Z" });
    // The account exists once it has called: a receiver for its events is its first call.
    const registered = await fetch(`${sandbox.url}/_sandbox/webhook-endpoints`, {
      method: "POST",
      headers: { "X-API-Key": API_KEY, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, secret: "whsec_browser" }),
    });
    expect(registered.status).toBe(201);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // A live stream is closed when its view is left: that failure is the page's doing.
    seen = await watchNetwork(page, sandbox.url, {
      expectedFailure: (request) =>
        request.url().includes("/_sandbox/requests/stream") && request.failure()?.errorText === "net::ERR_ABORTED",
    });
    await page.goto(`${sandbox.url}/`, { waitUntil: "load" });
    // The first account to call is the chosen one.
    await page.locator(`#account option[value="${FINGERPRINT}"]`).waitFor({ state: "attached" });
    await page.waitForFunction(
      (fingerprint) => (document.querySelector("#account") as HTMLSelectElement).value === fingerprint,
      FINGERPRINT,
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
    await receiver?.close();
  });

  it("onboards a company with Swap from the console, as the chosen account", async () => {
    await view(page, "Console").click();
    // Scalar's reference of the partner API, served by the sandbox with no network.
    await page
      .getByRole("heading", { name: /Partner Card/ })
      .first()
      .waitFor({ timeout: 60_000 });
    // As a reader would: the Companies group of the sidebar, then the operation.
    await page.getByRole("button", { name: "Companies" }).first().click();
    await page.getByText("Onboard a company").first().click();
    // Scalar keeps its place after the console's own hash, so a reload comes back to it.
    await page.waitForURL(/#\/console\/partner-api\/tag\/companies\/POST\/v1\/companies$/);
    const operation = page.locator('[id="partner-api/tag/companies/POST/v1/companies"]');
    await operation
      .getByRole("button", { name: /Test Request/ })
      .first()
      .click();
    const client = page.getByRole("dialog");
    await client.waitFor();
    // The contract's example body onboards "Acme Robotics Inc." with Card and Swap.
    await client.getByRole("button", { name: /^Send/ }).first().click();
    await expect.poll(async () => ((await client.textContent()) ?? "").includes("201"), { timeout: 20_000 }).toBe(true);
    await page.keyboard.press("Escape");
    const listed = await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": API_KEY } });
    const company = ((await listed.json()).companies as { id: string; name: string; swap: unknown }[]).find(
      (c) => c.name === "Acme Robotics Inc.",
    );
    expect(company?.swap).toMatchObject({ kycStatus: "not_started" });
    companyId = company!.id;
    // The log beside the console shows the call, as the account it acted for.
    await page.getByRole("complementary", { name: "The account's latest calls" }).getByText("onboardCompany").waitFor();
  }, 120_000);

  it("approves the company's KYC with the button, by keyboard", async () => {
    await view(page, "Accounts").click();
    const card = page.locator(`article[data-company="${companyId}"]`);
    await card.getByRole("heading", { name: "Acme Robotics Inc." }).waitFor();
    // Leaving the console, the address names the view shown, whatever Scalar wrote on its way out.
    expect(new URL(page.url()).hash).toBe("#/accounts");
    // "Skip to the view" focuses the view and keeps it (`#main` is no view of the page).
    await page.getByRole("link", { name: "Skip to the view" }).focus();
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    await card.getByRole("heading", { name: "Acme Robotics Inc." }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/accounts");
    const approve = card.getByRole("button", { name: "Approve KYC" });
    await approve.focus();
    await page.keyboard.press("Enter");
    await card
      .getByRole("group", { name: "Verification (KYC)" })
      .locator(".badge", { hasText: /^approved$/ })
      .waitFor();
    const account = await (await fetch(`${sandbox.url}/_sandbox/accounts/${FINGERPRINT}`)).json();
    expect(account.companies.find((c: any) => c.company.id === companyId).company.swap.kycStatus).toBe("approved");
    expect(await unnamedControls(page)).toEqual([]);
  }, 60_000);

  it("accepts the terms, opens an on-ramp route and takes a deposit on it with the buttons", async () => {
    const card = page.locator(`article[data-company="${companyId}"]`);
    await card.getByRole("button", { name: "Accept terms" }).click();
    await card
      .getByRole("group", { name: "Terms" })
      .locator(".badge", { hasText: /^accepted$/ })
      .waitFor();
    await card.getByRole("button", { name: "Open on-ramp route" }).click();
    const deposit = card.getByRole("button", { name: "Deposit" });
    await deposit.waitFor();
    await card.getByLabel(/^Amount to deposit on route/).fill("125");
    await deposit.click();
    await expect
      .poll(async () => {
        const events = await fetch(`${sandbox.url}/_sandbox/events`, { headers: { "X-API-Key": API_KEY } });
        return ((await events.json()).events as { type: string; payload: any }[])
          .filter((e) => e.type === "payment_route.transaction.created")
          .map((e) => e.payload.transaction.amount);
      })
      .toEqual(["125.00"]);
  }, 60_000);

  it("shows company.kyc_link.issued and company.kyc_status_changed with their delivery attempts", async () => {
    await view(page, "Events").click();
    for (const type of ["company.kyc_link.issued", "company.kyc_status_changed"]) {
      const event = page.locator(`details[data-type="${type}"]`).first();
      await event.waitFor();
      await event.locator("summary").click();
      const attempt = event.locator('tr[data-attempt="1"]');
      await attempt.waitFor();
      await expect.poll(() => attempt.textContent()).toContain("200");
      await event.getByText("delivered").first().waitFor();
    }
    expect(receiver.deliveries.map((d) => JSON.parse(d.body).type)).toEqual(
      expect.arrayContaining(["company.kyc_link.issued", "company.kyc_status_changed"]),
    );
    // Filtered by type, only that type is left.
    await page.getByLabel("Type").selectOption("company.kyc_status_changed");
    await expect.poll(() => page.locator("details[data-type]").count()).toBe(1);
    expect(await unnamedControls(page)).toEqual([]);
  }, 60_000);

  it("adds a 503 fault and sees the next request fail in the log", async () => {
    await view(page, "Clock & faults").click();
    await page.getByLabel("Operation").selectOption("listCardBins");
    await page.getByLabel("Status", { exact: true }).fill("503");
    await page.getByRole("button", { name: "Add fault" }).click();
    await page.locator("tr[data-fault]").getByText("answers 503").waitFor();
    expect(await unnamedControls(page)).toEqual([]);

    await view(page, "Requests").click();
    await page.getByText(/^Live: /).waitFor();
    const bins = await fetch(`${sandbox.url}/v1/card-bins`, {
      headers: { "X-API-Key": API_KEY, "X-Company-Id": companyId },
    });
    expect(bins.status).toBe(503);
    const row = page.locator('tr[data-status="503"]').first();
    await row.waitFor();
    expect(await row.textContent()).toContain("listCardBins");
    await row.getByRole("button").click();
    await page.getByRole("complementary", { name: "The selected call" }).getByText("Fault applied").waitFor();
    // The fault was for one call: the next one is answered.
    const again = await fetch(`${sandbox.url}/v1/card-bins`, {
      headers: { "X-API-Key": API_KEY, "X-Company-Id": companyId },
    });
    expect(again.status).toBe(200);
    await page.locator('tr[data-status="200"]', { hasText: "listCardBins" }).first().waitFor();
    expect(await unnamedControls(page)).toEqual([]);
  }, 60_000);

  it("advances the clock and sees a card turn Active", async () => {
    const holders = await (
      await fetch(`${sandbox.url}/_sandbox/companies/${companyId}/card-holders`, { headers: { "X-API-Key": API_KEY } })
    ).json();
    const created = await fetch(`${sandbox.url}/v1/cards`, {
      method: "POST",
      headers: { "X-API-Key": API_KEY, "X-Company-Id": companyId, "content-type": "application/json" },
      body: JSON.stringify({
        cardHolderId: holders.cardHolders[0].id,
        name: "Travel",
        category: "Other",
        bin: "45671234",
      }),
    });
    const { card } = await created.json();
    await view(page, "Accounts").click();
    const status = page.locator(`tr[data-card="${card.id}"]`);
    await status.getByText("Creating").waitFor();
    await view(page, "Clock & faults").click();
    await page.getByRole("button", { name: "Advance the clock 1 minute" }).click();
    await view(page, "Accounts").click();
    await status.getByText("Active").waitFor();
  }, 60_000);

  it("follows the colour scheme, light and dark", async () => {
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: "light" });
    expect(await background()).toBe("rgb(255, 255, 255)");
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await background()).toBe("rgb(13, 17, 23)");
  });

  it("made no request to another host, failed no load and logged no error", () => {
    expect(seen.blockedRequests, "requests to other hosts").toEqual([]);
    expect(seen.failedRequests, "failed requests").toEqual([]);
    expect(seen.badResponses, "error answers to the page").toEqual([]);
    expect(seen.consoleErrors, "console errors").toEqual([]);
  });
});
