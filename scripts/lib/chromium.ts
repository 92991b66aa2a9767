/**
 * Headless Chromium for the docs screenshots and the browser tests: one binary path and one set of flags.
 * The background-networking flags keep Chromium from calling out on a machine with no network.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Where Chromium is: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const chromiumPath = (): string => process.env.CHROMIUM_PATH || "/usr/bin/chromium";

export const hasChromium = (): boolean => existsSync(chromiumPath());

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launches headless Chromium with the shared flags. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
}
