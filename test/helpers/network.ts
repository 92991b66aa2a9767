/** Watching what a page loads in the browser tests: other hosts blocked, failures and console errors recorded. */
import type { Page, Request } from "playwright-core";

export interface NetworkWatch {
  consoleErrors: string[];
  failedRequests: string[];
  blockedRequests: string[];
  badResponses: string[];
}

export interface WatchOptions {
  /** A failed request the page meant (a stream it closed on purpose), not recorded. */
  expectedFailure?: (request: Request) => boolean;
}

/** Blocks every host but the page's own, as behind a strict proxy or with no network, and records what went wrong. */
export async function watchNetwork(page: Page, origin: string, options: WatchOptions = {}): Promise<NetworkWatch> {
  const watch: NetworkWatch = { consoleErrors: [], failedRequests: [], blockedRequests: [], badResponses: [] };
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`)) return route.continue();
    watch.blockedRequests.push(url);
    return route.abort("blockedbyclient");
  });
  page.on("console", (message) => {
    if (message.type() === "error") watch.consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => watch.consoleErrors.push(`uncaught: ${error.message}`));
  page.on("requestfailed", (request) => {
    if (options.expectedFailure?.(request)) return;
    watch.failedRequests.push(`${request.url()}: ${request.failure()?.errorText}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) watch.badResponses.push(`${response.status()} ${response.url()}`);
  });
  return watch;
}
