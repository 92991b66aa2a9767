/**
 * The sandbox dashboard in headless Chromium, as a partner uses it (slow: a browser, Scalar's bundle; kept in
 * its own file). Onboards a company with Swap from the console, approves its KYC with the button, sees
 * company.kyc_link.issued and company.kyc_status_changed with their delivery attempts, adds a 503 fault and
 * sees the next request fail in the log, advances the clock and sees a card turn Active; light and dark, a
 * name on every control, the main action by keyboard. And what partners met (issue 29): the page opens on the
 * account that called last, named by its key's end and then by the label set in the page (never a fingerprint
 * alone); a company's deposits under its route and in its money table; an event's outcome at each receiver, named
 * by URL; the header's account filtering the request log; every time in 24-hour UTC, the "advance to" field
 * included; no key-looking default in the console. At 390 px and 1400 px (issue 31) the element boxes of every
 * view's navigation and table headers neither overlap nor are cut off. Any request the page makes to another host
 * fails it.
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
/** An account that called before API_KEY did: the page must open on API_KEY's, the one that called last. */
const EARLIER_KEY = "sk_dashboard_earlier_3c1d";
/** Scalar's made-up key placeholder, or any value like it. */
const KEY_LIKE = /^[A-Za-z0-9+/=_-]{20,}$/;

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

let receiver: Receiver;
let failing: Receiver;
let sandbox: Sandbox;
let browser: Browser;
let page: Page;
let seen: NetworkWatch;
let companyId = "";

// Set up once for the describes below, which run in order on one page (each needs what the one before did).
beforeAll(async () => {
  if (!available) return;
  receiver = await startReceiver([200]);
  failing = await startReceiver([503]);
  sandbox = await startSandbox({ port: 0, seed: 11, frozen: true, startTime: "2026-11-24T09:00:00Z" });
  // Another account calls first: the page opens on the one that called last, not the first.
  expect((await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": EARLIER_KEY } })).status).toBe(200);
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
  // The account that called last is the chosen one.
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
  await failing?.close();
});

describe.skipIf(!available)(
  "the sandbox dashboard in headless Chromium, offline: the account, onboarding and KYC",
  () => {
    it("opens on the account that called last, named by its key's end, never by a fingerprint alone", async () => {
      expect(await page.locator("#account").inputValue()).toBe(FINGERPRINT);
      const options = await page.locator("#account option").allTextContents();
      expect(options).toHaveLength(2);
      expect(options.find((text) => text.startsWith("key …3c1d"))).toBeDefined();
      expect(options.find((text) => text.startsWith("key …wser"))).toBeDefined();
      for (const text of options) expect(text).not.toMatch(/acct_[0-9a-f]{12}/);
      expect(await page.locator("#account").textContent()).not.toContain(API_KEY);
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
      // No field of the console shows a made-up key, as a placeholder or as a value.
      await expect
        .poll(() =>
          page.evaluate(
            (pattern) =>
              [...document.querySelectorAll("#console-root input")].filter((input) => {
                const field = input as HTMLInputElement;
                return new RegExp(pattern).test(field.placeholder) || new RegExp(pattern).test(field.value);
              }).length,
            KEY_LIKE.source,
          ),
        )
        .toBe(0);
      const keyFields = await page.evaluate(() =>
        [...document.querySelectorAll("#console-root input")]
          .map((input) => (input as HTMLInputElement).placeholder)
          .filter((placeholder) => placeholder.startsWith("Empty: sent as")),
      );
      expect(keyFields.length).toBeGreaterThan(0);
      // The contract's example body onboards "Acme Robotics Inc." with Card and Swap.
      await client.getByRole("button", { name: /^Send/ }).first().click();
      await expect
        .poll(async () => ((await client.textContent()) ?? "").includes("201"), { timeout: 20_000 })
        .toBe(true);
      await page.keyboard.press("Escape");
      const listed = await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": API_KEY } });
      const company = ((await listed.json()).companies as { id: string; name: string; swap: unknown }[]).find(
        (c) => c.name === "Acme Robotics Inc.",
      );
      expect(company?.swap).toMatchObject({ kycStatus: "not_started" });
      companyId = company!.id;
      // The log beside the console shows the call, as the account it acted for.
      await page
        .getByRole("complementary", { name: "The account's latest calls" })
        .getByText("onboardCompany")
        .waitFor();
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
  },
);

describe.skipIf(!available)(
  "the sandbox dashboard in headless Chromium, offline: terms, routes, deposits and the account name",
  () => {
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

    it("lists the deposits under their route and in the company's money table, not as an empty ledger", async () => {
      const card = page.locator(`article[data-company="${companyId}"]`);
      const route = card.locator("tr[data-route]").first();
      const routeId = (await route.getAttribute("data-route"))!;
      for (const amount of [40, 60]) {
        const made = await fetch(`${sandbox.url}/_sandbox/payment-routes/${routeId}/deposits`, {
          method: "POST",
          headers: { "X-API-Key": API_KEY, "content-type": "application/json" },
          body: JSON.stringify({ amount }),
        });
        expect(made.status).toBe(201);
      }
      await route.locator('[data-deposits="3"]').getByText("3 deposits").waitFor();
      await route.getByText("3 deposits").click();
      await expect
        .poll(() => route.locator("li").allTextContents())
        .toEqual([
          expect.stringMatching(/^60 USD · 2026-11-24 09:00:00 UTC$/),
          expect.stringMatching(/^40 USD · /),
          expect.stringMatching(/^125 USD · /),
        ]);
      const money = card.locator("details[data-money]");
      const summary = (await money.locator("summary").textContent()) ?? "";
      expect(summary).toContain("3 deposits");
      expect(summary).not.toMatch(/\(0 entries/);
      await money.locator("summary").click();
      await expect.poll(() => money.locator("tbody tr").count()).toBe(3);
      expect(await money.locator("tbody").textContent()).toContain(`Deposit on payment route ${routeId}`);
    }, 60_000);

    it("names the account with the label set in the page; the header's picker shows it", async () => {
      await page.getByLabel("Account name").fill("Browser team");
      await page.getByRole("button", { name: "Save name" }).click();
      await expect
        .poll(() => page.locator(`#account option[value="${FINGERPRINT}"]`).textContent())
        .toMatch(/^Browser team · /);
      const listed = await (await fetch(`${sandbox.url}/_sandbox/accounts`)).json();
      expect(listed.accounts.find((a: { account: string }) => a.account === FINGERPRINT).label).toBe("Browser team");
      expect(await unnamedControls(page)).toEqual([]);
    }, 60_000);
  },
);

describe.skipIf(!available)("the sandbox dashboard in headless Chromium, offline: events and their deliveries", () => {
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

  it("gives an event's outcome at each receiver, by URL: delivered at one and failing at another is not just failed", async () => {
    const added = await fetch(`${sandbox.url}/_sandbox/webhook-endpoints`, {
      method: "POST",
      headers: { "X-API-Key": API_KEY, "content-type": "application/json" },
      body: JSON.stringify({ url: failing.url, secret: "whsec_failing" }),
    });
    expect(added.status).toBe(201);
    await page.getByLabel("Type").selectOption("");
    const set = await fetch(`${sandbox.url}/_sandbox/companies/${companyId}/kyc-status`, {
      method: "POST",
      headers: { "X-API-Key": API_KEY, "content-type": "application/json" },
      body: JSON.stringify({ kycStatus: "under_review" }),
    });
    expect(set.status).toBe(200);
    const event = page.locator('details[data-type="company.kyc_status_changed"]').first();
    await event.locator('[data-outcome="retrying"]').waitFor({ state: "attached" });
    await event.locator("summary").click();
    const good = event.locator(`li[data-receiver="${receiver.url}"]`);
    const bad = event.locator(`li[data-receiver="${failing.url}"]`);
    await expect.poll(() => good.textContent()).toBe(`${receiver.url} 200`);
    await expect.poll(() => bad.textContent()).toBe(`${failing.url} 503, retry due`);
    await event.getByText("failing, retry due").waitFor();
    // The attempts name their receivers by URL.
    const attempts = await event.locator("tr[data-attempt] td:nth-child(3)").allTextContents();
    expect(new Set(attempts)).toEqual(new Set([receiver.url, failing.url]));
    // Every retry spent (the clock moves a day): delivered to one, failed for good at the other.
    const advanced = await fetch(`${sandbox.url}/_sandbox/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ seconds: 86_400 }),
    });
    expect(advanced.status).toBe(200);
    await event.getByText("delivered to some receivers, failed at others").waitFor();
    await expect.poll(() => bad.getAttribute("data-outcome")).toBe("failed");
    expect(await good.getAttribute("data-outcome")).toBe("delivered");
    await page.getByLabel("Outcome", { exact: true }).selectOption("partial");
    await expect.poll(() => page.locator("details[data-type]").count()).toBeGreaterThan(0);
    await page.getByLabel("Outcome", { exact: true }).selectOption("");
    // The failing receiver goes, so the rest of the run sees one receiver again.
    await page.getByRole("button", { name: `Remove receiver ${failing.url}` }).click();
    await page.getByRole("button", { name: `Remove receiver ${failing.url}` }).waitFor({ state: "detached" });
  }, 60_000);
});

describe.skipIf(!available)(
  "the sandbox dashboard in headless Chromium, offline: faults, the request log and the clock",
  () => {
    it("adds a 503 fault and sees the next request fail in the log", async () => {
      await view(page, "Clock & faults").click();
      await page.getByLabel("Operation").selectOption("listCardBins");
      await page.getByLabel("Status", { exact: true }).fill("503");
      await page.getByRole("button", { name: "Add fault" }).click();
      await page.locator("tr[data-fault]").getByText("status 503").waitFor();
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

    it("keeps the calls of the account chosen in the header in the request log, until every account is asked for", async () => {
      const scope = page.getByLabel("Calls of");
      expect(await scope.inputValue()).toBe("account");
      expect(await scope.locator("option:checked").textContent()).toBe("the chosen account (Browser team)");
      const other = await fetch(`${sandbox.url}/v1/companies?from=earlier`, { headers: { "X-API-Key": EARLIER_KEY } });
      expect(other.status).toBe(200);
      const mine = await fetch(`${sandbox.url}/v1/companies?from=chosen`, { headers: { "X-API-Key": API_KEY } });
      expect(mine.status).toBe(200);
      const rows = page.locator("table.log tbody tr");
      await expect.poll(() => rows.filter({ hasText: "Browser team" }).count()).toBeGreaterThan(0);
      expect(await rows.filter({ hasText: "key …3c1d" }).count()).toBe(0);
      await scope.selectOption("");
      await expect.poll(() => rows.filter({ hasText: "key …3c1d" }).count()).toBeGreaterThan(0);
      // Choosing the other account in the header moves the filter with it.
      await scope.selectOption("account");
      await page.locator("#account").selectOption(accountFingerprint(EARLIER_KEY));
      await expect.poll(() => rows.filter({ hasText: "Browser team" }).count()).toBe(0);
      expect(await rows.filter({ hasText: "key …3c1d" }).count()).toBeGreaterThan(0);
      await page.locator("#account").selectOption(FINGERPRINT);
      await expect.poll(() => rows.filter({ hasText: "Browser team" }).count()).toBeGreaterThan(0);
    }, 60_000);

    it("advances the clock and sees a card turn Active", async () => {
      const holders = await (
        await fetch(`${sandbox.url}/_sandbox/companies/${companyId}/card-holders`, {
          headers: { "X-API-Key": API_KEY },
        })
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

    it("writes every time in 24-hour UTC, the advance-to field too, and advances to a time typed that way", async () => {
      await view(page, "Clock & faults").click();
      const field = page.getByLabel("Advance to (UTC)");
      await expect.poll(() => field.inputValue()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(await field.getAttribute("type")).toBe("text");
      await field.fill("2026-11-26 21:30:00");
      await page.getByRole("button", { name: "Advance", exact: true }).click();
      await expect.poll(() => page.locator("#clock").textContent()).toBe("Clock: 2026-11-26 21:30:00 UTC · frozen");
      await expect.poll(() => page.locator('[data-clock="Now"]').textContent()).toBe("2026-11-26 21:30:00 UTC");
      // A US 12-hour time is refused with the writing it takes.
      await field.fill("11/27/2026, 9:30 PM");
      await page.getByRole("button", { name: "Advance", exact: true }).click();
      await expect.poll(() => page.locator("#problem").textContent()).toContain("write it as 2026-11-23 09:00:00");
      // Every time the views show is written one way: no AM/PM anywhere.
      for (const name of ["Accounts", "Events", "Clock & faults"]) {
        await view(page, name).click();
        await page.locator("main section[data-view] > *").first().waitFor();
        expect(await page.locator("main").textContent()).not.toMatch(/\b(AM|PM)\b/);
      }
    }, 60_000);
  },
);

describe.skipIf(!available)(
  "the sandbox dashboard in headless Chromium, offline: layout, colour scheme and network",
  () => {
    /** What is cut off or overlaps in the page's navigation and its own tables' headers (Scalar's are its own). */
    function layoutProblems(): Promise<string[]> {
      return page.evaluate(() => {
        const problems: string[] = [];
        const width = document.documentElement.clientWidth;
        if (document.documentElement.scrollWidth > width)
          problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px in ${width} px`);
        const nav = document.querySelector("nav.views") as HTMLElement;
        if (nav.scrollWidth > nav.clientWidth)
          problems.push(`the nav overflows: ${nav.scrollWidth} > ${nav.clientWidth}`);
        const links = [...nav.querySelectorAll("a")];
        for (const link of links) {
          const box = link.getBoundingClientRect();
          if (box.left < 0 || box.right > width) problems.push(`nav link "${link.textContent}" cut at ${box.right} px`);
          if (link.scrollWidth > link.clientWidth) problems.push(`nav link "${link.textContent}" clips its text`);
        }
        const overlap = (a: DOMRect, b: DOMRect) =>
          a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        for (let i = 0; i < links.length; i++)
          for (let j = i + 1; j < links.length; j++)
            if (overlap(links[i]!.getBoundingClientRect(), links[j]!.getBoundingClientRect()))
              problems.push(`nav links "${links[i]!.textContent}" and "${links[j]!.textContent}" overlap`);
        for (const table of document.querySelectorAll("main table")) {
          if (table.closest("#console-root") || (table as HTMLElement).offsetParent === null) continue;
          const headers = [...table.querySelectorAll("thead th")] as HTMLElement[];
          const label = table.querySelector("caption")?.textContent ?? "a table";
          for (const th of headers)
            if (th.scrollWidth > th.clientWidth + 1)
              problems.push(`${label}: header "${th.textContent}" clips its text`);
          for (let i = 0; i < headers.length; i++)
            for (let j = i + 1; j < headers.length; j++)
              if (overlap(headers[i]!.getBoundingClientRect(), headers[j]!.getBoundingClientRect()))
                problems.push(
                  `${label}: headers "${headers[i]!.textContent}" and "${headers[j]!.textContent}" overlap`,
                );
        }
        return problems;
      });
    }

    it("at 390 px and 1400 px, no view's navigation or table headers overlap or are cut off", async () => {
      const account = page.locator(`article[data-company="${companyId}"]`);
      for (const width of [390, 1400]) {
        await page.setViewportSize({ width, height: 844 });
        for (const name of ["Accounts", "Events", "Requests", "Clock & faults", "Console"]) {
          await view(page, name).click();
          if (name === "Accounts") {
            await account.getByRole("heading").first().waitFor();
            // Every table of the company open, the wallets' and the money table's too.
            const closed = account.locator("details:not([open]) > summary");
            for (let opened = 0; opened < 10 && (await closed.count()) > 0; opened++) await closed.first().click();
          }
          if (name === "Events") {
            await page.locator("details[data-type]").first().waitFor();
            const first = page.locator("details[data-type]").first();
            if ((await first.getAttribute("open")) === null) await first.locator("summary").click();
            await first.locator("tr[data-attempt]").first().waitFor();
          }
          if (name === "Requests") await page.locator("table.log tbody tr").first().waitFor();
          if (name === "Clock & faults") await page.getByLabel("Advance to (UTC)").waitFor();
          if (name === "Console") await page.locator("#console-root").waitFor();
          expect((await layoutProblems()).join("\n"), `${name} at ${width} px`).toBe("");
        }
      }
      await page.setViewportSize({ width: 1400, height: 900 });
    }, 120_000);

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
  },
);
