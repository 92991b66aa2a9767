/**
 * Fair delivery: 100 accounts × 16 receivers that never answer filled the sandbox's 64 connections, and another
 * account's healthy receiver got "not sent within 10 s: no free connection" and nothing. Each account now
 * holds at most a few connections, and an account with none under way always gets one: the healthy account's
 * event arrives at once while the hanging ones still hang.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { type Receiver, startReceiver } from "../../scripts/lib/receiver.ts";
import { clientFor, ONBOARD_BODY } from "./support.ts";

const HANGING_ACCOUNTS = 40;
const RECEIVERS_EACH = 16;

let sandbox: Sandbox;
let hanging: Server;
let hangingUrl: string;
let healthy: Receiver;
let held = 0;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 8, frozen: true, webhookTimeoutSeconds: 4 });
  hanging = createServer((request) => {
    held++;
    request.resume();
  });
  hanging.maxConnections = 10_000;
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  healthy = await startReceiver([200]);
});
afterAll(async () => {
  hanging.closeAllConnections();
  hanging.close();
  await healthy.close();
  await sandbox.stop();
});

describe("fair delivery", () => {
  it("many accounts' hanging receivers do not delay another account's delivery", async () => {
    for (let account = 0; account < HANGING_ACCOUNTS; account++) {
      const client = clientFor(sandbox.url, `hang-${account}`);
      for (let receiver = 0; receiver < RECEIVERS_EACH; receiver++)
        expect(
          (
            await client.post("/_sandbox/webhook-endpoints", {
              url: `${hangingUrl}/a${account}/r${receiver}`,
              secret: "s",
            })
          ).status,
        ).toBe(201);
      await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    }
    const fine = clientFor(sandbox.url, "healthy");
    await fine.post("/_sandbox/webhook-endpoints", { url: healthy.url, secret: "s" });
    await fine.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    // Every hanging account's events and the healthy one's fall due together; advance answers within its wait.
    const advancing = sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds: 0 } });
    await expect.poll(() => held, { timeout: 3_000 }).toBeGreaterThanOrEqual(64);
    await expect.poll(() => healthy.deliveries.length, { timeout: 3_000, interval: 50 }).toBeGreaterThan(0);
    // It arrived while the hanging attempts still hang: none of theirs has ended (each is recorded when it does).
    const hangingEvents = (await clientFor(sandbox.url, "hang-0").get("/_sandbox/events")).body.events as {
      deliveries: unknown[];
    }[];
    expect(hangingEvents.flatMap((event) => event.deliveries)).toEqual([]);
    // The hanging accounts hold a few each, not all: 4 per account, at most 64 shared plus one per account.
    expect(held).toBeLessThanOrEqual(HANGING_ACCOUNTS * 4);
    await advancing;
    const events = (await fine.get("/_sandbox/events")).body.events as { deliveries: { statusCode?: number }[] }[];
    expect(events.flatMap((event) => event.deliveries).every((delivery) => delivery.statusCode === 200)).toBe(true);
  }, 30_000);
});
