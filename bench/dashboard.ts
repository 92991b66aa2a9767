/**
 * Sandbox dashboard: how long the page takes to load on loopback (to its load event, and until the first
 * account is drawn) against the 300 ms budget; how the live request log holds up while the sandbox
 * answers 500 requests a second (frame intervals and long tasks in the page, rows in the table); how long
 * the console (Scalar's bundle) takes to open; and what the dashboard adds to the devkit in bytes.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { Agent, request as httpRequest } from "node:http";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";
import { pageDir, scalarBundlePath } from "../devkit/src/dashboard/index.ts";
import { startSandbox } from "../devkit/src/sandbox/index.ts";
import { chromiumPath, hasChromium, launchChromium } from "../scripts/lib/chromium.ts";
import type { Benchmark } from "./context.ts";
import { median, percentile } from "./harness.ts";
import type { BenchResult } from "./results.ts";

const API_KEY = "bench-dashboard";
/** The budget for the page to load on loopback. */
const LOAD_BUDGET_MS = 300;
/** The live views stay smooth at this many requests per second. */
const LIVE_RATE = 500;
/** A frame every 50 ms (20 fps) or better counts as smooth while the log scrolls. */
const SMOOTH_FRAME_MS = 50;

/** The largest value, 0 for none (a run too short to draw a batch). */
const longest = (values: readonly number[]) => values.reduce((a, b) => Math.max(a, b), 0);

interface LoadSample {
  loadMs: number;
  readyMs: number;
}

/**
 * One cold load: the browser's cache off (so every file is fetched again) and the tab's session storage
 * cleared (so the page chooses its account again), in the same tab each round, so a new renderer process
 * is not part of what is timed. To the load event, and to the first account drawn.
 */
async function loadOnce(page: Page, url: string): Promise<LoadSample> {
  await page.evaluate("sessionStorage.clear()").catch(() => undefined);
  await page.goto("about:blank");
  await page.goto(`${url}/#/accounts`, { waitUntil: "load" });
  await page.waitForFunction(() => performance.getEntriesByName("dashboard:ready").length > 0, undefined, {
    timeout: 30_000,
  });
  return await page.evaluate(() => {
    const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    return {
      loadMs: navigation.loadEventEnd,
      readyMs: performance.getEntriesByName("dashboard:ready")[0]!.startTime,
    };
  });
}

/** Sends `rate` partner API calls a second for `seconds`, on a few kept-alive connections; returns how many were answered. */
async function drive(url: string, companyId: string, rate: number, seconds: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const { hostname, port } = new URL(url);
  let answered = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const req = httpRequest(
        {
          agent,
          hostname,
          port,
          path: "/v1/card-bins",
          headers: { "X-API-Key": API_KEY, "X-Company-Id": companyId },
        },
        (response) => {
          response.resume();
          response.on("end", () => {
            answered++;
            resolve();
          });
        },
      );
      req.on("error", () => resolve());
      req.end();
    });
  const pending: Promise<void>[] = [];
  const started = performance.now();
  const total = rate * seconds;
  // Paced in ticks of 20 ms: each tick sends what the rate owes by then.
  for (let sent = 0; sent < total; ) {
    const owed = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; sent < owed; sent++) pending.push(one());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await Promise.all(pending);
  agent.destroy();
  return answered;
}

interface LiveSample {
  frames: number[];
  longTasks: number[];
  /** How long each batch of new rows took the page's script (its `dashboard:draw` measures). */
  draws: number[];
  rows: number;
}

/**
 * The requests view open for `seconds` while `rate` calls a second arrive (0: idle, the baseline of the same
 * page on the same machine): every frame interval and long task the page saw.
 */
async function liveOnce(
  page: Page,
  url: string,
  companyId: string,
  rate: number,
  seconds: number,
): Promise<LiveSample> {
  await page.goto(`${url}/#/requests`, { waitUntil: "load" });
  await page.getByText(/^Live: /).waitFor();
  // As text: a loader that keeps function names would wrap a named function here in a helper the page does not have.
  await page.evaluate(`(() => {
    window.benchFrames = [];
    window.benchLong = [];
    window.benchStop = false;
    let last = performance.now();
    function tick(now) {
      window.benchFrames.push(now - last);
      last = now;
      if (!window.benchStop) requestAnimationFrame(tick);
    }
    requestAnimationFrame(tick);
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.benchLong.push(entry.duration);
    }).observe({ type: "longtask" });
  })()`);
  if (rate > 0) await drive(url, companyId, rate, seconds);
  else await page.waitForTimeout(seconds * 1000);
  // The last batch is drawn within a quarter of a second.
  await page.waitForTimeout(500);
  return page.evaluate(() => {
    const w = window as unknown as { benchFrames: number[]; benchLong: number[]; benchStop: boolean };
    w.benchStop = true;
    return {
      frames: w.benchFrames.slice(1),
      longTasks: w.benchLong,
      draws: performance.getEntriesByName("dashboard:draw").map((entry) => entry.duration),
      rows: document.querySelectorAll("table.log tbody tr").length,
    };
  });
}

async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const name of await readdir(dir)) bytes += (await stat(path.join(dir, name))).size;
  return bytes;
}

/** What one measuring step adds to the result. */
type Findings = Pick<BenchResult, "figures" | "ratios" | "notes">;

/** Cold page loads, one tab with its cache off: to the load event and to the first account drawn. */
async function measurePageLoads(
  browser: Browser,
  url: string,
  rounds: number,
  progress: (message: string) => void,
  { figures, ratios }: Findings,
): Promise<number> {
  const loads: LoadSample[] = [];
  const loadPage = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const cdp = await loadPage.context().newCDPSession(loadPage);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  // The first load warms the sandbox's file cache and Chromium; it is not counted.
  await loadOnce(loadPage, url);
  for (let round = 1; round <= rounds; round++) {
    progress(`dashboard: cold page load ${round}/${rounds}`);
    loads.push(await loadOnce(loadPage, url));
  }
  await loadPage.close();
  const loadMs = median(loads.map((s) => s.loadMs));
  const readyMs = median(loads.map((s) => s.readyMs));
  figures.push(
    { label: "page load, to the load event (median, cold)", value: loadMs, unit: "ms" },
    { label: "page load, to the first account drawn (median, cold)", value: readyMs, unit: "ms" },
    {
      label: "page load, to the first account drawn (p95)",
      value: percentile(
        loads.map((s) => s.readyMs),
        95,
      ),
      unit: "ms",
    },
  );
  ratios.push({
    label: "300 ms ÷ page load to the first account drawn",
    value: LOAD_BUDGET_MS / readyMs,
    target: 1,
  });

  return readyMs;
}

/** The requests view idle, then live under {LIVE_RATE} requests/s: frame intervals, long tasks, draws, rows. */
async function measureLiveLog(
  page: Page,
  url: string,
  companyId: string,
  liveSeconds: number,
  readyMs: number,
  progress: (message: string) => void,
  { figures, ratios, notes }: Findings,
): Promise<void> {
  progress(`dashboard: the request log idle for ${liveSeconds} s (the baseline)`);
  const idle = await liveOnce(page, url, companyId, 0, liveSeconds);
  progress(`dashboard: the request log live at ${LIVE_RATE} requests/s for ${liveSeconds} s`);
  const live = await liveOnce(page, url, companyId, LIVE_RATE, liveSeconds);
  const p95Frame = percentile(live.frames, 95);
  const at = `at ${LIVE_RATE} requests/s`;
  figures.push(
    { label: "requests view idle: frame interval, p95", value: percentile(idle.frames, 95), unit: "ms" },
    { label: "requests view idle: long tasks (over 50 ms)", value: idle.longTasks.length, unit: "tasks" },
    { label: `requests view ${at}: frame interval, median`, value: median(live.frames), unit: "ms" },
    { label: `requests view ${at}: frame interval, p95`, value: p95Frame, unit: "ms" },
    { label: `requests view ${at}: frame interval, longest`, value: longest(live.frames), unit: "ms" },
    { label: `requests view ${at}: long tasks (over 50 ms)`, value: live.longTasks.length, unit: "tasks" },
    {
      label: `requests view ${at}: one batch drawn (the page's script), median`,
      value: live.draws.length > 0 ? median(live.draws) : 0,
      unit: "ms",
    },
    { label: `requests view ${at}: one batch drawn, longest`, value: longest(live.draws), unit: "ms" },
    { label: `requests view ${at}: table rows at the end (bounded at 100)`, value: live.rows, unit: "rows" },
  );
  ratios.push({
    label: `${SMOOTH_FRAME_MS} ms ÷ p95 frame interval ${at}`,
    value: SMOOTH_FRAME_MS / p95Frame,
    target: 1,
  });
  if (live.rows > 100) notes.push(`The log table held ${live.rows} rows: its bound of 100 did not hold.`);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(", ");
  if (readyMs > LOAD_BUDGET_MS)
    notes.push(
      `Page load missed its 300 ms budget at load average ${load} on ${os.cpus().length} cores: the page fetches ` +
        "its own files, then the account list and the account (two requests after the modules run); every step " +
        "waits for a core here. A quiet machine is the figure of record.",
    );
  if (p95Frame > SMOOTH_FRAME_MS)
    notes.push(
      `Frames missed ${SMOOTH_FRAME_MS} ms at p95 under ${LIVE_RATE} requests/s while the same page idle drew at ` +
        `p95 ${percentile(idle.frames, 95).toFixed(1)} ms, at load average ${load} on ${os.cpus().length} cores: ` +
        "the page's work per batch (at most 40 rows cloned, every quarter second) is small, and the sandbox " +
        "answering 500 requests/s shares the cores with the browser.",
    );
}

/** The console's first opening (Scalar's bundle loads then), to the reference drawn. */
async function measureConsoleOpen(page: Page, url: string, progress: (message: string) => void, { figures }: Findings) {
  progress("dashboard: opening the console (Scalar's bundle)");
  const consoleStarted = performance.now();
  await page.goto(`${url}/#/console`, { waitUntil: "load" });
  await page
    .getByRole("heading", { name: /Partner Card/ })
    .first()
    .waitFor({ timeout: 60_000 });
  figures.push({
    label: "console open, to the reference drawn (first time)",
    value: performance.now() - consoleStarted,
    unit: "ms",
  });
}

/** The sizes of what the page serves: its own files and Scalar's bundle. */
async function measureFileSizes({ figures, notes }: Findings): Promise<void> {
  const scalar = await readFile(scalarBundlePath());
  figures.push(
    { label: "the page's own files (HTML, CSS, modules)", value: (await folderBytes(pageDir)) / 1024, unit: "KiB" },
    { label: "Scalar's standalone bundle", value: scalar.length / 1024, unit: "KiB" },
    { label: "Scalar's standalone bundle, gzip", value: gzipSync(scalar).length / 1024, unit: "KiB" },
  );
  notes.push(
    "The page loads only its own files (about 20 KiB of modules, no framework); Scalar's bundle loads when the " +
      "console is first opened, so it does not count against the page load. The sandbox reads none of these files " +
      "at start: the first request for each reads it once.",
  );
}

export const dashboardBenchmark: Benchmark = {
  name: "dashboard",
  title: "Sandbox dashboard",
  async run({ size, progress }) {
    if (!hasChromium())
      throw new Error(
        `no Chromium at ${chromiumPath()}: the dashboard is measured in a browser (apt-get install chromium)`,
      );
    const rounds = size === "full" ? 15 : size === "quick" ? 7 : 2;
    const liveSeconds = size === "full" ? 5 : size === "quick" ? 3 : 1;
    const findings: Findings = { figures: [], ratios: [], notes: [] };

    const sandbox = await startSandbox({ port: 0, seed: 1 });
    const browser = await launchChromium();
    try {
      const companies = await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": API_KEY } });
      const companyId = ((await companies.json()) as { companies: { id: string }[] }).companies[0]!.id;
      const readyMs = await measurePageLoads(browser, sandbox.url, rounds, progress, findings);
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await measureLiveLog(page, sandbox.url, companyId, liveSeconds, readyMs, progress, findings);
      await measureConsoleOpen(page, sandbox.url, progress, findings);
      await page.close();
    } finally {
      await browser.close();
      await sandbox.stop();
    }
    await measureFileSizes(findings);
    return {
      name: this.name,
      title: this.title,
      method:
        "In-process sandbox (port 0) and headless Chromium on loopback. Page load: one tab, its HTTP cache off and " +
        "its session storage cleared each round (every file fetched, the account chosen again), `#/accounts`, the navigation's `loadEventEnd` and the `dashboard:ready` mark the page sets " +
        "when the first account is drawn; median over the rounds after one warm-up. Live: the requests view open while " +
        `GET /v1/card-bins is sent at ${LIVE_RATE}/s (paced every 20 ms on 16 kept-alive connections); the page records ` +
        "every requestAnimationFrame interval and every long task. Sizes from the files served.",
      ...findings,
    };
  },
};
