/**
 * The sandbox's moving parts over a store and a clock: the engine with the flows' parts, the test mode and the
 * request handler (server.ts), the scenarios served by that handler. `startSandbox` (compose.ts) puts them behind
 * its HTTP server; partner-api-devkit/msw behind MSW's request handlers. Nothing here needs Node: files, sockets
 * and node:sqlite stay with the store and the server.
 */
import type { ContractRouter } from "../contract/router.ts";
import type { SandboxClock } from "./clock.ts";
import { type EngineSettings, SandboxEngine } from "./engine.ts";
import { engineParts, type Task } from "./flows/index.ts";
import { createRequestListener } from "./server.ts";
import type { Store } from "./store/tables.ts";
import type { FaultInput } from "./testmode/faults.ts";
import { TestMode } from "./testmode/index.ts";

export interface AssemblySettings extends EngineSettings {
  requestLogSize: number;
  faults: readonly FaultInput[];
}

export function assembleSandbox(router: ContractRouter, store: Store, clock: SandboxClock, settings: AssemblySettings) {
  const { requestLogSize, faults, ...engineSettings } = settings;
  const partnerContract = router.documents.get("partner") as Record<string, unknown> | undefined;
  const engine: SandboxEngine<Task> = new SandboxEngine<Task>(
    store,
    clock,
    { ...engineSettings, ...(partnerContract ? { partnerContract } : {}) },
    engineParts,
  );
  const testMode = new TestMode(engine, router, { seed: store.seed, requestLogSize, faults });
  const listener = createRequestListener(router, engine, testMode);
  testMode.scenarios.serveWith(listener);
  return { engine, testMode, listener };
}
