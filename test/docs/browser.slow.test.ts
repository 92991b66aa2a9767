import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { startSandbox } from "partner-api-devkit/sandbox";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chromiumPath as chromiumPathOf,
  hasChromium as hasChromiumAt,
  launchChromium,
} from "../../scripts/lib/chromium.ts";
import {
  buildDocs,
  type DocsBuildResult,
  SANDBOX_PAGE,
  SANDBOX_SECTION_TITLE,
  SCHEMAS_TAG,
} from "../../scripts/lib/docs/build.ts";
import { DASHBOARD_SCREENSHOTS } from "../../scripts/lib/docs/dashboard-screenshots.ts";
import { SCREENSHOT_FILES } from "../../scripts/lib/docs/screenshots.ts";
import { type StaticServer, serveStatic } from "../../scripts/lib/docs/server.ts";
import { KEY_PLACEHOLDER } from "../../scripts/lib/docs/try-it.ts";
import { WORKFLOWS_FOLDER, WORKFLOWS_HEADING } from "../../scripts/lib/docs/workflows.ts";
import { repoRoot, sandboxBundleJsonPath } from "../../scripts/lib/paths.ts";
import { HTTP_METHODS } from "../../src/http-methods.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { type NetworkWatch, watchNetwork } from "../helpers/network.ts";

const chromiumPath = chromiumPathOf();
const hasChromium = hasChromiumAt();
const screenshotDir = path.join(repoRoot, "test-output", "docs");

if (!hasChromium) {
  console.warn(
    `[docs browser test] SKIPPED: no Chromium at ${chromiumPath}. Install it with \`apt-get install -y chromium\` ` +
      "(.ci/run does this in CI) or set CHROMIUM_PATH; the offline-rendering check did not run.",
  );
}

const contract = loadDocument();
const operations = Object.values<any>(contract.paths).flatMap((item) =>
  HTTP_METHODS.filter((m) => item[m]).map((m) => ({
    operationId: item[m].operationId as string,
    summary: item[m].summary as string,
  })),
);
const webhooks = Object.values<any>(contract.webhooks).map((item) => ({
  operationId: item.post.operationId as string,
  summary: item.post.summary as string,
}));
const schemaNames = Object.keys(contract.components.schemas);
const tags = [...contract.tags.map((t: any) => t.name as string), SCHEMAS_TAG];

interface PictureStats {
  width: number;
  height: number;
  /** Distinct RGB colours. */
  colors: number;
  /** Share of pixels that differ from the most common colour (the background). */
  drawn: number;
}

/** Decodes a PNG in the browser (a blank page, no CSP) and measures how much of it is drawn. */
async function pictureStats(page: Page, pngPath: string): Promise<PictureStats> {
  const src = `data:image/png;base64,${(await readFile(pngPath)).toString("base64")}`;
  return page.evaluate(async (dataUrl) => {
    const image = new Image();
    image.src = dataUrl;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext("2d")!;
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, image.width, image.height);
    const counts = new Map<number, number>();
    for (let i = 0; i < data.length; i += 4) {
      const rgb = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
      counts.set(rgb, (counts.get(rgb) ?? 0) + 1);
    }
    let background = 0;
    for (const count of counts.values()) background = Math.max(background, count);
    return { width: image.width, height: image.height, colors: counts.size, drawn: 1 - background / (data.length / 4) };
  }, src);
}

/** A rendered page of text and code: many colours (anti-aliased text) and a fair share of drawn pixels. */
const looksRendered = (stats: PictureStats) => stats.colors > 50 && stats.drawn > 0.03;

/** The built site, its server and the browser page on it: set up once for the describe below. */
let out: string;
let built: DocsBuildResult;
let server: StaticServer;
let browser: Browser;
let page: Page;
let origin: string;
let watch: NetworkWatch;
let loadMs = 0;

function expectCleanNetwork() {
  expect(watch.blockedRequests, "requests to other hosts").toEqual([]);
  expect(watch.failedRequests, "failed requests").toEqual([]);
  expect(watch.badResponses, "error responses").toEqual([]);
  expect(watch.consoleErrors, "console errors").toEqual([]);
}

/** The reference page: loaded clean, listing everything, navigable, and its screenshots drawn. */
function referencePage(): void {
  it("loads with no request leaving the origin, no failed request and no console error", async () => {
    console.log(
      `[docs browser test] index.html ${(built.indexBytes / 1024 / 1024).toFixed(2)} MiB, load event after ${Math.round(loadMs)} ms in Chromium`,
    );
    await expect(page.title()).resolves.toBe(contract.info.title);
    await page.getByRole("link", { name: "Cards", exact: true }).first().waitFor({ state: "visible" });
    await page.screenshot({ path: path.join(screenshotDir, "overview.png") });
    expectCleanNetwork();
  });

  it("lists all 15 operations, 6 webhooks and every schema, and renders each one", async () => {
    expect(operations).toHaveLength(15);
    expect(webhooks).toHaveLength(6);
    const hrefs = new Set<string>();
    for (const tag of tags) {
      await page.getByRole("link", { name: tag, exact: true }).first().click();
      await page.waitForTimeout(150);
      for (const href of await page
        .locator("a[href^='#/']")
        .evaluateAll((links) => links.map((a) => a.getAttribute("href")!)))
        hrefs.add(href);
    }
    const hrefFor = (id: string) =>
      [...hrefs].find((href) => /^#\/[^/#]+\/[^/#]+$/.test(href) && href.endsWith(`/${id.toLowerCase()}`));
    const missing = [...operations, ...webhooks]
      .filter(({ operationId }) => !hrefFor(operationId))
      .map((o) => o.operationId);
    expect(missing, "operations and webhooks without an entry").toEqual([]);
    const missingSchemas = schemaNames.filter((name) => !hrefFor(name));
    expect(missingSchemas, "schemas without an entry").toEqual([]);

    for (const { operationId, summary } of [...operations, ...webhooks]) {
      await page.evaluate((hash) => (window.location.hash = hash), hrefFor(operationId)!);
      await page.locator("h2", { hasText: summary }).first().waitFor({ state: "visible", timeout: 10_000 });
    }
    expectCleanNetwork();
  }, 120_000);

  it("navigates by clicking into an operation and shows its TypeScript sample first", async () => {
    await page.evaluate(() => (window.location.hash = ""));
    await page.getByRole("link", { name: "Cards", exact: true }).first().click();
    await page
      .getByRole("link", { name: /^Create a card/ })
      .first()
      .click();
    await page.waitForURL(/#\/cards\/createcard$/);
    await page.locator("h2", { hasText: "Create a card" }).first().waitFor({ state: "visible" });
    const companyId = contract.components.parameters.CompanyId.example as string;
    await page.getByText(`const companyId = "${companyId}";`).first().waitFor({ state: "visible" });
    await page.getByText('company.POST("/v1/cards"').first().waitFor({ state: "visible" });
    await expect(page.getByText("createPartnerClient").first().isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(screenshotDir, "create-card.png") });
    expectCleanNetwork();
  }, 60_000);

  it("npm run docs wrote a PNG of the first page, of one operation and of each dashboard view, none blank", async () => {
    expect(built.screenshots.map((file) => path.basename(file))).toEqual([
      SCREENSHOT_FILES.firstPage,
      SCREENSHOT_FILES.operation,
    ]);
    expect(built.dashboardScreenshots.map((file) => path.basename(file))).toEqual(Object.values(DASHBOARD_SCREENSHOTS));
    const blank = await browser.newPage({ viewport: { width: 300, height: 200 } });
    try {
      for (const file of [...built.screenshots, ...built.dashboardScreenshots]) {
        const stats = await pictureStats(blank, file);
        console.log(
          `[docs browser test] ${path.basename(file)}: ${stats.width}x${stats.height}, ${stats.colors} colours, ${(stats.drawn * 100).toFixed(1)}% drawn`,
        );
        expect(stats).toMatchObject({ width: 1400, height: 900 });
        expect(looksRendered(stats), `${path.basename(file)} looks blank`).toBe(true);
      }
      // The check can fail: a screenshot of an empty page is blank.
      const empty = path.join(out, "empty.png");
      await blank.screenshot({ path: empty });
      expect(looksRendered(await pictureStats(blank, empty))).toBe(false);
    } finally {
      await blank.close();
    }
  }, 60_000);
}

/** The Sandbox control page, and code lines that fit their panels. */
function sandboxPageAndCodeLines(): void {
  it("links the reference to the Sandbox control page, which renders every control operation", async () => {
    const sandbox = JSON.parse(await readFile(sandboxBundleJsonPath, "utf8"));
    const controlOperations = Object.values<any>(sandbox.paths).flatMap((item) =>
      HTTP_METHODS.filter((m) => item[m]).map((m) => ({
        operationId: item[m].operationId as string,
        summary: item[m].summary as string,
      })),
    );
    expect(controlOperations.length).toBeGreaterThan(10);
    expect(built.sandboxFiles).toEqual([SANDBOX_PAGE, "sandbox.yaml", "sandbox.json"]);

    await page.evaluate(() => (window.location.hash = ""));
    await page.getByRole("link", { name: SANDBOX_SECTION_TITLE, exact: true }).first().click();
    await page.locator(`a[href="${SANDBOX_PAGE}"]`).first().click();
    await page.waitForURL(new RegExp(`/${SANDBOX_PAGE.replace(".", "\\.")}(#.*)?$`));
    await expect(page.title()).resolves.toBe(SANDBOX_SECTION_TITLE);
    await page.locator("h1", { hasText: SANDBOX_SECTION_TITLE }).first().waitFor({ state: "visible" });
    // Open every tag of the sidebar to collect the entries, then visit each operation's entry.
    const hrefs = new Set<string>();
    for (const tag of sandbox.tags.map((t: any) => t.name as string)) {
      await page.getByRole("link", { name: tag, exact: true }).first().click();
      await page.waitForTimeout(150);
      for (const href of await page
        .locator("a[href^='#/']")
        .evaluateAll((links) => links.map((a) => a.getAttribute("href")!)))
        hrefs.add(href);
    }
    for (const { operationId, summary } of controlOperations) {
      const href = [...hrefs].find((h) => h.endsWith(`/${operationId.toLowerCase()}`));
      expect(href, `${operationId} has an entry in the sidebar`).toBeDefined();
      await page.evaluate((hash) => (window.location.hash = hash), href!);
      await page.locator("h2", { hasText: summary }).first().waitFor({ state: "visible", timeout: 10_000 });
    }
    await page.screenshot({ path: path.join(screenshotDir, "sandbox-control.png") });
    // And back to the reference.
    await expect(page.locator('a[href="index.html"]').count()).resolves.toBeGreaterThan(0);
    expectCleanNetwork();
  }, 300_000);

  it("fits every code line inside its panel at 1400 px: the company ULID is not cut at the edge", async () => {
    await page.goto(`${server.url}#/cards/createcard`, { waitUntil: "load" });
    await page.locator("h2", { hasText: "Create a card" }).first().waitFor({ state: "visible", timeout: 60_000 });
    const companyId = contract.components.parameters.CompanyId.example as string;
    const boxes = await page.evaluate((ulid) => {
      const panels = Array.from(document.querySelectorAll("pre")).filter(
        (pre) => pre.getBoundingClientRect().width > 0,
      );
      const cut = panels
        .filter((pre) => pre.scrollWidth > pre.clientWidth + 1)
        .map((pre) => (pre.textContent ?? "").slice(0, 60));
      // The ULID's own box lies inside the panel that shows it.
      const holder = panels.find((pre) => (pre.textContent ?? "").includes(ulid));
      let inside = false;
      if (holder) {
        const walker = document.createTreeWalker(holder, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.textContent!.indexOf(ulid);
          if (at < 0) continue;
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + ulid.length);
          const [text, panel] = [range.getBoundingClientRect(), holder.getBoundingClientRect()];
          inside = text.left >= panel.left && text.right <= panel.right && text.width > 0;
        }
      }
      return { panels: panels.length, cut, inside };
    }, companyId);
    expect(boxes.panels).toBeGreaterThan(0);
    expect(boxes.cut, "code panels whose lines run past their edge").toEqual([]);
    expect(boxes.inside, "the company ULID lies inside its panel").toBe(true);
  }, 60_000);
}

/** Search snippets, the site's bar and version switcher, the dashboard's screenshots. */
function searchAndSiteBar(): void {
  it("search snippets keep the space where a description wraps (no 'acard holder')", async () => {
    // An operation whose description wraps a line between two plain words; Redoc's search dropped such a break
    // ("Issuing continues asynchronously:⏎the card" showed as "asynchronously:the card").
    const wrap = Object.values<any>(contract.paths)
      .flatMap((item) => HTTP_METHODS.map((method) => item[method]?.description))
      .map((description) => (typeof description === "string" ? /([A-Za-z]+[:,.]?)\n([a-z]+)/.exec(description) : null))
      .find((found) => found !== null);
    expect(wrap, "an operation description that wraps between two words").toBeTruthy();
    const [left, right] = [wrap![1]!, wrap![2]!];
    const searchPage = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      await searchPage.goto(server.url, { waitUntil: "load" });
      await searchPage.getByText("Search", { exact: false }).first().click();
      const input = searchPage.getByPlaceholder("Search docs...");
      await input.waitFor({ timeout: 60_000 });
      await input.fill(left.replace(/\W+$/, ""));
      // Indexing runs in a worker once the dialog opens: up to minutes on a loaded machine. Spaced or not, the
      // snippet shows up, so the defect fails at once rather than by time. The text read is the search dialog's:
      // the input's nearest ancestor that holds the results' keyboard hints.
      const shown = new RegExp(`${left.replace(/\W/g, "\\$&")} ?${right}`).source;
      const found = await searchPage.waitForFunction(
        (pattern) => {
          let box = document.querySelector<HTMLElement>('input[placeholder="Search docs..."]');
          // biome-ignore lint/performance/useDomNodeTextContent: the text as the reader sees it, blocks apart
          while (box && !/to navigate/.test(box.innerText)) box = box.parentElement;
          // biome-ignore lint/performance/useDomNodeTextContent: the text as the reader sees it, blocks apart
          const text = box ? box.innerText : "";
          return new RegExp(pattern).test(text) ? text : false;
        },
        shown,
        { timeout: 240_000 },
      );
      const text = (await found.jsonValue()) as string;
      expect(text, "the search results").toContain(`${left} ${right}`);
      expect(text).not.toContain(`${left}${right}`);
    } finally {
      await searchPage.close();
    }
  }, 300_000);

  it("links every page from the bar, and the version switcher opens a released version's reference", async () => {
    await page.goto(server.url, { waitUntil: "load" });
    const bar = page.getByRole("navigation", { name: "Documentation" });
    await bar.getByRole("link", { name: "Errors" }).click();
    await page.waitForURL(/errors\.html/);
    await page.getByText("A transaction of another account").first().waitFor({ state: "visible" });
    await page.getByRole("navigation", { name: "Documentation" }).getByRole("link", { name: "Changelog" }).click();
    await page.waitForURL(/changelog\.html/);
    await page.getByText("What changed in each release").first().waitFor({ state: "visible" });
    const versions = page.getByRole("combobox", { name: "Reference version" });
    const labels = await versions.locator("option").allTextContents();
    expect(labels[0]).toMatch(/\(latest\)$/);
    expect(labels.slice(1)).toEqual(built.versions);
    // Each release once: the latest is not listed again as a release of its own.
    const numbers = labels.map((label) => label.replace(/ \(latest\)$/, ""));
    expect(new Set(numbers).size).toBe(numbers.length);
    // An older release opens its own reference (when there is one: with a single release, it is the latest).
    const older = built.versions[0];
    const target = older ?? "0.1.0";
    if (older) await versions.selectOption({ label: older });
    else await page.goto(new URL(`versions/${target}/index.html`, server.url).href, { waitUntil: "load" });
    await page.waitForURL(new RegExp(`versions/${target.replaceAll(".", "\\.")}/index\\.html`));
    await page.getByText(`This is the reference of release ${target}`).first().waitFor({ state: "visible" });
    if (older)
      expect(await page.getByRole("combobox", { name: "Reference version" }).inputValue()).toBe(
        `../../versions/${older}/index.html`,
      );
    expectCleanNetwork();
  }, 90_000);

  it("the dashboard's screenshots on the Sandbox control page open at full size", async () => {
    await page.goto(`${server.url}${SANDBOX_PAGE}`, { waitUntil: "load" });
    for (const file of Object.values(DASHBOARD_SCREENSHOTS)) {
      const link = page.locator(`a[href="${file}"]`).filter({ has: page.locator(`img[src="${file}"]`) });
      await expect(link.count(), file).resolves.toBe(1);
    }
    // Server descriptions are plain text in Redoc: no Markdown backticks show.
    const servers = await page.locator("text=/`/").count();
    expect(servers, "literal backticks on the page").toBe(0);
  }, 60_000);
}

/** Try it, against a server the reader picks. */
function tryIt(): void {
  it("Try it sends a request with the key the reader types to the server the reader picked", async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3 });
    const tryPage = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      // The page's own host and the server the reader picked; nothing else.
      const blocked: string[] = [];
      const errors: string[] = [];
      await tryPage.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith(`${origin}/`) || url.startsWith(`${sandbox.url}/`)) return route.continue();
        blocked.push(url);
        return route.abort("blockedbyclient");
      });
      tryPage.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      await tryPage.goto(`${server.url}try.html?server=${encodeURIComponent(sandbox.url)}`, { waitUntil: "load" });
      await tryPage.getByText(`Requests go to ${sandbox.url}`).waitFor({ timeout: 60_000 });
      await tryPage
        .getByRole("heading", { name: /Partner Card/ })
        .first()
        .waitFor({ timeout: 90_000 });
      // No key is filled in for the reader, and none that looks like one is on the page.
      const filled = await tryPage
        .locator("input")
        .evaluateAll((inputs) =>
          inputs.map((input) => (input as HTMLInputElement).value).filter((value) => /^(sk|pk|key)[_-]/i.test(value)),
        );
      expect(filled).toEqual([]);
      await tryPage.getByRole("button", { name: "Companies" }).first().click();
      await tryPage.getByText("List companies").first().click();
      await tryPage
        .locator('[id*="GET/v1/companies"]')
        .getByRole("button", { name: /Test Request/ })
        .first()
        .click();
      const client = tryPage.getByRole("dialog");
      await client.waitFor();
      const key = "sk_test_typed_by_the_reader";
      const keyField = client.getByPlaceholder(KEY_PLACEHOLDER);
      await keyField.first().waitFor();
      // No field shows a token-like placeholder (Scalar's own is one) or a value the reader did not type.
      const keyLike = await tryPage
        .locator("input")
        .evaluateAll((inputs) =>
          inputs
            .map((input) => `${(input as HTMLInputElement).placeholder} ${(input as HTMLInputElement).value}`)
            .filter((text) => /(^|\s)[A-Za-z0-9+/=_-]{20,}(\s|$)/.test(text)),
        );
      expect(keyLike).toEqual([]);
      await keyField.first().fill(key);
      await client.getByRole("button", { name: /^Send/ }).first().click();
      await expect
        .poll(async () => ((await client.textContent()) ?? "").includes("200"), { timeout: 30_000 })
        .toBe(true);
      const log = await fetch(`${sandbox.url}/_sandbox/requests?limit=5`, { headers: { "X-API-Key": key } });
      const { requests } = (await log.json()) as {
        requests: Array<{ operationId?: string; response?: { status?: number } }>;
      };
      expect(requests.some((call) => call.operationId === "listCompanies")).toBe(true);
      await tryPage.screenshot({ path: path.join(screenshotDir, "try-it.png") });
      expect(blocked, "requests to hosts other than the page's and the picked server").toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await tryPage.close();
      await sandbox.stop();
    }
  }, 180_000);
}

/** The Workflows section, and the pages opened from the file system. */
function workflowsAndFiles(): void {
  it("shows the Workflows section: each diagram drawn, and a step's link opens its operation", async () => {
    await page.goto(`${server.url}#/${WORKFLOWS_HEADING.toLowerCase()}`, { waitUntil: "networkidle" });
    await page.locator("h1, h2", { hasText: WORKFLOWS_HEADING }).first().waitFor({ state: "visible" });
    // A group of its own in the sidebar, after the API's tags: the guide's sections do not list the workflow ids.
    const labels = await page.locator('[data-testid="menu-item-label"]').allTextContents();
    const group = labels.indexOf(WORKFLOWS_HEADING);
    expect(group).toBeGreaterThan(labels.indexOf("Webhooks"));
    expect(labels.slice(0, labels.indexOf("Cards"))).not.toContain("card-issued");
    expect(labels.slice(group)).toContain("card-issued");
    // Each workflow is a page of the group: its diagram drawn there.
    const workflowIds = labels.slice(group + 1, labels.indexOf(SCHEMAS_TAG));
    expect(workflowIds.length).toBeGreaterThanOrEqual(6);
    for (const id of workflowIds) {
      await page.evaluate((hash) => (window.location.hash = hash), `#/${WORKFLOWS_HEADING.toLowerCase()}/${id}`);
      const diagram = page.locator(`img[src="${WORKFLOWS_FOLDER}/${id}.svg"]`).first();
      await diagram.waitFor({ state: "attached", timeout: 10_000 });
      await expect
        .poll(() => diagram.evaluate((image) => (image as HTMLImageElement).naturalWidth), { timeout: 10_000 })
        .toBeGreaterThan(100);
    }
    await page.evaluate(() => (window.location.hash = "#/workflows/card-issued"));
    await page.locator('a[href="#tag/Cards/operation/createCard"]').first().click();
    await page.waitForURL(/#\/cards\/createcard$/);
    await page.locator("h2", { hasText: "Create a card" }).first().waitFor({ state: "visible" });
    expectCleanNetwork();
  }, 60_000);

  it("also works opened straight from the file system, with no server and no network", async () => {
    const filePage = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      const fileWatch = await watchNetwork(filePage, "file://");
      await filePage.goto(pathToFileURL(built.indexPath).href, { waitUntil: "networkidle" });
      await filePage.getByRole("link", { name: "Companies", exact: true }).first().click();
      await filePage
        .getByRole("link", { name: /^Onboard a company/ })
        .first()
        .click();
      await filePage.waitForURL(/#\/companies\/onboardcompany$/);
      await filePage.getByText('client.POST("/v1/companies"').first().waitFor({ state: "visible" });
      expect(fileWatch).toEqual({ consoleErrors: [], failedRequests: [], blockedRequests: [], badResponses: [] });
    } finally {
      await filePage.close();
    }
  }, 60_000);
}

describe.skipIf(!hasChromium)("the built docs in headless Chromium, offline", () => {
  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), "docs-browser-test-"));
    built = await buildDocs({ outDir: out });
    server = await serveStatic(out);
    origin = new URL(server.url).origin;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    watch = await watchNetwork(page, origin);
    await mkdir(screenshotDir, { recursive: true });
    const started = performance.now();
    await page.goto(server.url, { waitUntil: "load" });
    loadMs = performance.now() - started;
    await page.waitForLoadState("networkidle");
    // The build renders five pages and takes screenshots: minutes on a loaded 2-core machine.
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (out) await rm(out, { recursive: true, force: true });
  });

  referencePage();
  sandboxPageAndCodeLines();
  searchAndSiteBar();
  tryIt();
  workflowsAndFiles();
});

describe.skipIf(!hasChromium)("the network watch of the browser test", () => {
  it("catches a request to another host, a failed request, a 404 and a console error", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "docs-browser-control-"));
    await writeFile(
      path.join(dir, "index.html"),
      '<!doctype html><title>control</title><img src="https://cdn.example.invalid/logo.svg"><img src="missing.png"><script>console.error("boom")</script>',
    );
    const server = await serveStatic(dir);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const watch = await watchNetwork(page, new URL(server.url).origin);
      await page.goto(server.url, { waitUntil: "networkidle" });
      expect(watch.blockedRequests).toEqual(["https://cdn.example.invalid/logo.svg"]);
      expect(watch.failedRequests.some((line) => line.startsWith("https://cdn.example.invalid/logo.svg"))).toBe(true);
      expect(watch.badResponses).toEqual([`404 ${server.url}missing.png`]);
      expect(watch.consoleErrors).toContain("boom");
    } finally {
      await browser.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

// Without Chromium the report shows why the browser checks did not run.
if (!hasChromium) {
  describe("the built docs in headless Chromium", () => {
    it.skip(`SKIPPED: needs Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH)`, () => {});
  });
}
