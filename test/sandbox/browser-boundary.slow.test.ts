/**
 * The sandbox's browser boundary in headless Chromium (slow: a browser): no script from data runs in a hosted
 * page, even a `javascript:` redirectUri a state file of before the check still holds; a page of another
 * origin reads nothing from the control API and makes no fault, though it may call the partner API (as with
 * Prism); a name pointed at this machine (DNS rebinding, played by Chromium's host resolver rules) is refused;
 * the dashboard shows no secret a call carried.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { openDatabase } from "../../devkit/src/sandbox/store/sqlite-store.ts";
import { CHROMIUM_FLAGS, chromiumPath, hasChromium } from "../../scripts/lib/chromium.ts";
import { ONBOARD_BODY } from "./support.ts";

const available = hasChromium();
if (!available) console.warn(`[browser boundary test] SKIPPED: no Chromium at ${chromiumPath()}`);

const PLACEHOLDER = "https://placeholder.invalid/redirect";
const HOSTILE = "javascript:window.top.__pwned='redirect'//";

const folder = mkdtempSync(path.join(tmpdir(), "partner-browser-boundary-"));
const state = path.join(folder, "state.db");
let sandbox: Sandbox;
let browser: Browser;
let evil: Server;
let evilOrigin = "";
let companyId = "";

// Set up once for both describes below (they run in order, on one sandbox and one browser).
beforeAll(async () => {
  if (!available) return;
  // A company onboarded with a redirectUri, which the state file then says is javascript: (as a sandbox of
  // before the check could have saved it).
  const first = await startSandbox({ port: 0, state });
  const onboarded = await fetch(`${first.url}/v1/companies`, {
    method: "POST",
    headers: { "x-api-key": "browser", "content-type": "application/json" },
    body: JSON.stringify({
      ...ONBOARD_BODY,
      name: "<img src=x onerror=window.__pwned='name'>",
      products: ["Swap"],
      redirectUri: PLACEHOLDER,
    }),
  });
  expect(onboarded.status).toBe(201);
  companyId = ((await onboarded.json()) as { company: { id: string } }).company.id;
  await first.stop();
  const db = openDatabase(state);
  const found = db
    .prepare("UPDATE companies SET record = replace(record, ?, ?) WHERE instr(record, ?) > 0")
    .run(PLACEHOLDER, HOSTILE, PLACEHOLDER).changes;
  db.close();
  expect(found).toBeGreaterThan(0);
  sandbox = await startSandbox({ port: 0, state });
  evil = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<!doctype html><title>another site</title>");
  });
  await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
  evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: [...CHROMIUM_FLAGS, "--host-resolver-rules=MAP rebind.test 127.0.0.1"],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.stop();
  await new Promise((resolve) => (evil ? evil.close(resolve) : resolve(undefined)));
  rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(!available)(
  "the browser boundary in headless Chromium: scripts and origins",
  { timeout: 120_000 },
  () => {
    it("a hosted page renders no javascript: link and runs no script, from data or injected", async () => {
      const page = await browser.newPage();
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      const answer = await page.goto(`${sandbox.url}/_sandbox/hosted/kyc/${companyId}`);
      expect(answer?.headers()["content-security-policy"]).toMatch(/^default-src 'none'/);
      await page.getByRole("button", { name: "complete → approved" }).click();
      await expect.poll(() => page.locator("#kyc-status").textContent()).toBe("approved");
      expect(await page.locator("a[href^='javascript:' i]").count()).toBe(0);
      expect(await page.locator("#continue-refused").count()).toBe(1);
      // The company's name is text, and a script the page did not bring is refused by its policy.
      await page.addScriptTag({ content: "window.__pwned = 'injected'" }).catch(() => undefined);
      await page.evaluate(() => {
        const script = document.createElement("script");
        script.textContent = "window.__pwned = 'inline'";
        document.body.append(script);
      });
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
      expect(dialogs).toEqual([]);
      await page.close();
    });

    it("a page of another origin reads nothing from the control API and makes no fault; the partner API answers it", async () => {
      const page = await browser.newPage();
      await page.goto(`${evilOrigin}/`);
      const results = await page.evaluate(async (target) => {
        const outcome = async (run: () => Promise<Response>) => {
          try {
            const response = await run();
            return response.type === "opaque" ? "opaque" : `${response.status} ${(await response.text()).slice(0, 40)}`;
          } catch (error) {
            return `refused: ${(error as Error).name}`;
          }
        };
        const stream = await new Promise<string>((resolve) => {
          const source = new EventSource(`${target}/_sandbox/requests/stream`);
          source.onopen = () => resolve("open");
          source.onerror = () => {
            source.close();
            resolve("error");
          };
        });
        return {
          log: await outcome(() => fetch(`${target}/_sandbox/requests`)),
          endpoints: await outcome(() =>
            fetch(`${target}/_sandbox/webhook-endpoints`, { headers: { "X-API-Key": "browser" } }),
          ),
          fault: await outcome(() =>
            fetch(`${target}/_sandbox/faults`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ operationId: "listCompanies", status: 503 }),
            }),
          ),
          stream,
          partner: await outcome(() => fetch(`${target}/v1/companies`, { headers: { "X-API-Key": "browser" } })),
        };
      }, sandbox.url);
      expect(results.log).toBe("refused: TypeError");
      expect(results.endpoints).toBe("refused: TypeError");
      expect(results.fault).toBe("refused: TypeError");
      expect(results.stream).toBe("error");
      expect(results.partner).toMatch(/^200 \{"companies":/);
      expect((await sandbox.control.GET("/_sandbox/faults")).data!.faults).toEqual([]);
      await page.close();
    });
  },
);

describe.skipIf(!available)(
  "the browser boundary in headless Chromium: rebinding and secrets",
  { timeout: 120_000 },
  () => {
    it("a name pointed at this machine (DNS rebinding) gets no page and no data", async () => {
      const page = await browser.newPage();
      const rebound = sandbox.url.replace("127.0.0.1", "rebind.test");
      const answer = await page.goto(`${rebound}/`);
      expect(answer?.status()).toBe(403);
      expect(await page.textContent("body")).toContain("--allowed-host rebind.test");
      const read = await page.evaluate(async () => (await fetch("/_sandbox/requests")).status);
      expect(read).toBe(403);
      await page.close();
    });

    it("the dashboard shows no secret a call carried", async () => {
      const secrets = ["whsec_cased_123", "sk_live_in_text_456", "apikey_field_789", "bearer_token_abc"];
      const send = (contentType: string, body: string, headers: Record<string, string> = {}) =>
        fetch(`${sandbox.url}/_sandbox/webhook-endpoints`, {
          method: "POST",
          headers: { "x-api-key": "browser", "content-type": contentType, ...headers },
          body: new TextEncoder().encode(body),
        });
      await send("Application/JSON", JSON.stringify({ url: "http://127.0.0.1:9/", secret: secrets[0] }));
      await send("text/plain", `secret=${secrets[1]}`);
      await send("application/json", JSON.stringify({ url: "http://127.0.0.1:9/", api_key: secrets[2] }), {
        authorization: `Bearer ${secrets[3]}`,
      });
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`${sandbox.url}/#/requests`);
      const rows = page.locator("#main tbody tr");
      await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(3);
      for (let index = 0; index < 3; index++) {
        await rows.nth(index).click();
        const text = (await page.locator("#main").textContent()) ?? "";
        for (const secret of secrets) expect(text, secret).not.toContain(secret);
      }
      expect(await page.locator("#main").textContent()).toContain("[REDACTED]");
      await page.close();
    });
  },
);
