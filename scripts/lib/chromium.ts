/**
 * Headless Chromium for the docs screenshots and the browser tests: one binary path and one set of flags.
 * The background-networking flags keep Chromium from calling out on a machine with no network.
 */
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";
import { underCI } from "./runtimes.ts";

/** Where Chromium is: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const chromiumPath = (): string => process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/**
 * Whether Chromium is there. Under CI (the CI variable set, as `.ci/run` and GitHub Actions set it) a missing
 * Chromium is an error, never a quiet "no": a browser suite must not turn into a skip and let CI pass.
 */
export function hasChromium(): boolean {
  if (existsSync(chromiumPath())) return true;
  if (underCI())
    throw new Error(
      `no Chromium at ${chromiumPath()}, and CI is set: a browser check may not be skipped under CI. ` +
        "Install it (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH.",
    );
  return false;
}

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Launches headless Chromium with the shared flags. Playwright is loaded here, on the first launch: the fast tests
 * import this file for `hasChromium` and the flags (through the runtimes' targets and the benchmarks' list), and
 * loading playwright-core costs each vitest worker about a second of CPU.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
}
