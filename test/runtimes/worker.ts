/**
 * The Worker workerd runs (test/runtimes/run.ts bundles it with the `workerd` condition, as wrangler does): the
 * scenario inside a request, a webhook receiver answering the Worker's own incoming requests, and one client kept
 * across requests, as a Worker keeps what it builds once per isolate.
 */
import { createPartnerClient, createWebhookHandler, type PartnerClient, type WebhookHandler } from "partner-api-client";
import { runScenario, type ScenarioConfig } from "./scenario.ts";

interface Env {
  WEBHOOK_SECRET: string;
}

let handler: WebhookHandler | undefined;
let kept: PartnerClient | undefined;
const received: string[] = [];

const json = (body: unknown, status = 200) => Response.json(body, { status });

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    try {
      if (url.pathname === "/scenario") return json(await runScenario((await request.json()) as ScenarioConfig));
      if (url.pathname === "/webhooks") {
        handler ??= createWebhookHandler({
          secrets: env.WEBHOOK_SECRET,
          on: { "company.kyc_status_changed": (event) => void received.push(event.id) },
        });
        return await handler(request);
      }
      if (url.pathname === "/received") return json(received);
      if (url.pathname === "/kept") {
        // One client for the isolate, built by the first request; each later request calls through it.
        const { baseUrl, apiKey, companyId, cardHolderId } = (await request.json()) as Record<string, string>;
        kept ??= createPartnerClient({ apiKey: apiKey!, baseUrl: baseUrl!, timeoutMs: 250, retry: false });
        const started = Date.now();
        const result = await kept
          .forCompany(companyId!)
          .GET("/v1/card-holders/{cardHolderId}", { params: { path: { cardHolderId: cardHolderId! } } })
          .then(
            (answer) => ({ status: answer.response.status }),
            (error: Error) => ({ error: error.name }),
          );
        return json({ ...result, ms: Date.now() - started });
      }
      if (url.pathname === "/globals")
        return json({
          Buffer: typeof (globalThis as Record<string, unknown>).Buffer,
          process: typeof (globalThis as Record<string, unknown>).process,
        });
      return json({ error: `no route ${url.pathname}` }, 404);
    } catch (error) {
      return json(
        { error: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error) },
        500,
      );
    }
  },
};
