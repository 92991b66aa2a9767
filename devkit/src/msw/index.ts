/**
 * partner-api-devkit/msw: the stateful sandbox inside Mock Service Worker, for unit, component and browser tests
 * that open no port and start no process. `createSandboxHandlers()` gives MSW request handlers that serve the
 * partner API and the sandbox's control API (`/_sandbox/…`) at `baseUrl`, backed by the sandbox's own engine,
 * flows, contract validation, clock and test mode (assemble.ts, as `startSandbox`), with the in-memory store.
 * Webhooks are `fetch` calls to the registered receivers, signed as always, retried on the sandbox's clock: a
 * receiver URL a test's own MSW handler serves receives them. Runs where MSW runs: Node (`setupServer`) and a
 * browser (`setupWorker`); nothing here imports a Node module (the contracts come bundled, not read from files).
 */
import { HttpResponse, http, type RequestHandler } from "msw";
import partnerContract from "../../../generated/openapi.json" with { type: "json" };
import controlContract from "../../../generated/sandbox.json" with { type: "json" };
import type { ContractRouter } from "../contract/router.ts";
import { routerOver } from "../contract/router-over.ts";
import { assembleSandbox } from "../sandbox/assemble.ts";
import { SandboxClock } from "../sandbox/clock.ts";
import { controlClient, type SandboxControl } from "../sandbox/control-client.ts";
import { answerInProcess } from "../sandbox/in-process.ts";
import { MemoryStore } from "../sandbox/store/tables.ts";
import { checkedHandlerOptions, type SandboxHandlersOptions } from "./options.ts";

export type { SandboxControl } from "../sandbox/control-client.ts";
export { DEFAULT_BASE_URL, type SandboxHandlersOptions } from "./options.ts";

export interface SandboxHandlers {
  /** MSW request handlers for everything under `baseUrl`: hand them to `setupServer(...)` or `setupWorker(...)`. */
  handlers: RequestHandler[];
  /** The base URL the handlers serve (no trailing slash). */
  baseUrl: string;
  /** Typed client of the control API, through the handlers (MSW must be listening). */
  control: SandboxControl;
  /** The control client with an account's X-API-Key on every call; `{ throwOnError: true }` throws ApiError. */
  controlFor(apiKey: string | undefined, options: { throwOnError: true }): SandboxControl<true>;
  controlFor(apiKey?: string, options?: { throwOnError?: false }): SandboxControl;
  /** Answers one request as the handlers do, without MSW: a web Request in, a web Response out. */
  answer(request: Request): Promise<Response>;
  /** Cancels the clock's timers and the deliveries under way; the handlers then answer 503. */
  stop(): Promise<void>;
}

let router: ContractRouter | undefined;
const sharedRouter = () => {
  router ??= routerOver(partnerContract as Record<string, unknown>, controlContract as Record<string, unknown>);
  return router;
};

/** The sandbox as MSW request handlers: the in-memory state of one sandbox, for as long as the handlers live. */
export function createSandboxHandlers(options: SandboxHandlersOptions = {}): SandboxHandlers {
  const settings = checkedHandlerOptions(options, partnerContract as Record<string, unknown>);
  const routes = sharedRouter();
  const clock = new SandboxClock(settings.startMs, settings.speed);
  if (settings.frozen) clock.freezeAtStart();
  const store = new MemoryStore(settings.seed);
  const { engine, listener } = assembleSandbox(routes, store, clock, {
    cardIssuingSeconds: settings.cardIssuingSeconds,
    kybReviewSeconds: settings.kybReviewSeconds,
    webhookTimeoutMs: settings.webhookTimeoutMs,
    webhooks: settings.webhooks,
    baseUrl: () => settings.baseUrl,
    requestLogSize: settings.requestLogSize,
    faults: [],
  });
  let stopping: Promise<void> | undefined;
  const answer = (request: Request): Promise<Response> => {
    if (stopping)
      return Promise.resolve(
        HttpResponse.json(
          { title: "Sandbox stopped", status: 503, detail: "createSandboxHandlers: stop() was called" },
          { status: 503, headers: { "content-type": "application/problem+json" } },
        ),
      );
    return answerInProcess(listener, request);
  };
  const handlers = [http.all(`${settings.baseUrl}/*`, ({ request }) => answer(request))];
  const controlFor = ((apiKey?: string, controlOptions: { throwOnError?: boolean } = {}) =>
    controlClient(
      settings.baseUrl,
      // The global fetch as it is at each call: MSW's setupServer patches it after the handlers are made.
      { ...(apiKey !== undefined ? { apiKey } : {}), ...controlOptions, fetch: (request) => globalThis.fetch(request) },
      sharedRouter,
    )) as SandboxHandlers["controlFor"];
  const stop = () => {
    stopping ??= (async () => {
      await engine.stop();
      await store.close();
    })();
    return stopping;
  };
  return { handlers, baseUrl: settings.baseUrl, control: controlFor(), controlFor, answer, stop };
}
