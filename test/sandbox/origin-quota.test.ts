/**
 * New accounts from other sites' pages: any web page could create sandbox accounts (CORS `*`, any new key a
 * seeded, persisted account), 5,000 in 8 s, and so reach the 100,000-account cap in minutes. A request that
 * creates an account with another site's `Origin` is counted per origin on the sandbox's clock: past the limit
 * a 429 naming it, with Retry-After; keys that already have an account, requests without `Origin` and the
 * dashboard's own origin are not counted; the next minute of the clock starts afresh.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { NEW_ACCOUNTS_PER_ORIGIN } from "../../devkit/src/sandbox/origin-quota.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 12, frozen: true, startTime: "2030-01-01T00:00:00Z" });
});
afterAll(() => sandbox.stop());

const call = (key: string, origin?: string) =>
  fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": key, ...(origin ? { Origin: origin } : {}) } });

describe("new accounts from another site's pages", () => {
  it("are bounded per origin and minute of the sandbox's clock, with a clear 429", async () => {
    const evil = "https://evil.example";
    for (let index = 0; index < NEW_ACCOUNTS_PER_ORIGIN; index++)
      expect((await call(`evil-${index}`, evil)).status).toBe(200);
    const refused = await call("evil-one-more", evil);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    const problem = (await refused.json()) as { detail: string; type: string };
    expect(problem.type).toMatch(/new-account-rate$/);
    expect(problem.detail).toContain(`"https://evil.example" created ${NEW_ACCOUNTS_PER_ORIGIN} new accounts`);
    // Not created: the account list does not hold it.
    const accounts = await sandbox.control.GET("/_sandbox/accounts");
    expect(JSON.stringify(accounts.data)).not.toContain("evil-one-more");

    // An account that exists answers as before; another origin, no origin and the sandbox's own are not counted.
    expect((await call("evil-0", evil)).status).toBe(200);
    expect((await call("other-site", "https://other.example")).status).toBe(200);
    expect((await call("curl-like")).status).toBe(200);
    expect((await call("own-origin", sandbox.url)).status).toBe(200);

    // The next minute of the sandbox's clock.
    await sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds: 60 } });
    expect((await call("evil-next-minute", evil)).status).toBe(200);
  });
});
