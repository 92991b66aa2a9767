/**
 * Sandbox deliveries against a receiver that accepts connections and never answers (the attack of issue
 * "Sandbox reliability"): how long a 1 h `clock/advance` takes with many events due to it, and how late
 * another account's card turns `Active` on a running clock meanwhile. Before deliveries ran off the due loop,
 * each silent attempt held everything up for its whole limit (a 1 h advance: 180 s for one event's 18
 * attempts; a card: 60 s instead of 10 s).
 */
import { startSandbox } from "../devkit/src/sandbox/index.ts";
import { requestExamples } from "../generated/examples.ts";
import { startReceiver } from "../scripts/lib/receiver.ts";
import type { Benchmark } from "./context.ts";
import type { Figure, Ratio } from "./results.ts";
import { sandboxCall as call } from "./sandbox.ts";

/** A company with Swap, whose onboarding fires an event: the contract's own onboarding example, renamed. */
const ONBOARD = { ...requestExamples.onboardCompany.cardOnlyCompany, name: "Bench Silent Inc.", products: ["Swap"] };

/** Account "silent" with `events` delivery series due now to the receiver; account "punctual" with a new card. */
async function setUp(base: string, receiverUrl: string, events: number) {
  await call(base, "silent", "POST", "/_sandbox/webhook-endpoints", { url: receiverUrl, secret: "s" });
  await call(base, "silent", "POST", "/v1/companies", ONBOARD);
  const eventId = (await call(base, "silent", "GET", "/_sandbox/events")).events[0].id as string;
  for (let i = 1; i < events; i++) await call(base, "silent", "POST", `/_sandbox/events/${eventId}/resend`);
  const companyId = (await call(base, "punctual", "GET", "/v1/companies")).companies[0].id as string;
  const holders = await call(base, "punctual", "GET", `/_sandbox/companies/${companyId}/card-holders`);
  const card = { cardHolderId: holders.cardHolders[0].id, name: "B", category: "Other", bin: "45671234" };
  return { companyId, create: () => call(base, "punctual", "POST", "/v1/cards", card, companyId) };
}

const cardStatus = async (base: string, companyId: string) =>
  (await call(base, "punctual", "GET", "/v1/cards", undefined, companyId)).cards[0].status as string;

export const deliveriesBenchmark: Benchmark = {
  name: "deliveries",
  title: "Sandbox deliveries to a receiver that never answers",
  async run({ size, progress }) {
    const events = size === "full" ? 1_000 : size === "quick" ? 200 : 20;
    // The real limit at full size; shorter ones keep the smaller runs short (the shape is the same).
    const limitSeconds = size === "full" ? 10 : size === "quick" ? 2 : 0.3;
    const speed = size === "full" ? 1 : size === "quick" ? 5 : 50;
    const waitBound = limitSeconds * 1000 + Math.min((limitSeconds * 1000) / 4, 1_000);
    const figures: Figure[] = [];
    const ratios: Ratio[] = [];
    const notes: string[] = [];

    progress(`deliveries: a 1 h advance with ${events} attempts due to a silent receiver`);
    {
      const receiver = await startReceiver({ answer: "silent" });
      const sandbox = await startSandbox({ port: 0, frozen: true, webhookTimeoutSeconds: limitSeconds });
      try {
        const { companyId, create } = await setUp(sandbox.url, receiver.url, events);
        await create();
        const started = performance.now();
        await call(sandbox.url, "punctual", "POST", "/_sandbox/clock/advance", { seconds: 3600 });
        const advanceMs = performance.now() - started;
        const status = await cardStatus(sandbox.url, companyId);
        if (status !== "Active") throw new Error(`deliveries: the other account's card is ${status} after the advance`);
        figures.push(
          { label: `1 h clock/advance, ${events} attempts due to a silent receiver`, value: advanceMs, unit: "ms" },
          { label: "the attempt limit (webhookTimeoutSeconds)", value: limitSeconds * 1000, unit: "ms" },
          { label: "requests that reached the silent receiver", value: receiver.requests, unit: "requests" },
        );
        ratios.push({
          label: `1.5 x (the limit and a quarter of it, at most 1 s more: ${waitBound} ms) ÷ the advance (at least 1: about one limit in all, not one per attempt)`,
          value: (1.5 * waitBound) / advanceMs,
          target: 1,
        });
      } finally {
        await sandbox.stop();
        await receiver.close();
      }
    }

    progress(`deliveries: a card on a clock at ${speed}x while ${events} attempts wait on a silent receiver`);
    {
      const receiver = await startReceiver({ answer: "silent" });
      const sandbox = await startSandbox({ port: 0, speed, webhookTimeoutSeconds: limitSeconds });
      try {
        const { companyId, create } = await setUp(sandbox.url, receiver.url, events);
        const started = performance.now();
        await create();
        while ((await cardStatus(sandbox.url, companyId)) !== "Active")
          await new Promise((resolve) => setTimeout(resolve, 10));
        const activeMs = performance.now() - started;
        const dueMs = 10_000 / speed;
        figures.push({
          label: `a card's 10 s of issuing at ${speed}x (due after ${dueMs} ms), ${events} silent attempts under way`,
          value: activeMs,
          unit: "ms",
        });
        ratios.push({
          label: "(its due time and 250 ms) ÷ the time it took to turn Active (at least 1: on time)",
          value: (dueMs + 250) / activeMs,
          target: 1,
        });
      } finally {
        await sandbox.stop();
        await receiver.close();
      }
    }
    notes.push(
      "At most 4 attempts are under way to one receiver; the others wait within their own limit and are recorded as not sent when it runs out, so the receiver sees a handful of requests, not one per attempt.",
    );
    return {
      name: "deliveries",
      title: "Sandbox deliveries to a receiver that never answers",
      method: `In this process: startSandbox with webhookTimeoutSeconds ${limitSeconds} and a loopback receiver that reads each request and never answers; ${events} delivery series of one account due to it (an event and its resends). One run each: a frozen clock advanced 1 h (another account's card due on the way), then a clock at ${speed}x with a card created after the attempts started.`,
      figures,
      ratios,
      notes,
    };
  },
};
