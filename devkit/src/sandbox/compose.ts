/**
 * The composition root: what `startSandbox` builds, in order. The state file's store is opened (store/: it
 * reads what the file holds), the start scenarios read, the server bound, and then, its address known, the engine made with the
 * flows' parts (flows/index.ts `engineParts`), the test mode, and the request listener (server.ts). The store
 * is the one part a caller may hand in (`storeFor`): a test with a failing disk, a benchmark with another design.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ArazzoDocument } from "../arazzo/document.ts";
import { checkArazzoShape, WorkflowError } from "../arazzo/document.ts";
import { sandboxRouter } from "../contract/documents.ts";
import { createDashboard } from "../dashboard/index.ts";
import { displayPath } from "../paths.ts";
import { assembleSandbox } from "./assemble.ts";
import { createBoundary } from "./boundary.ts";
import { SandboxClock } from "./clock.ts";
import { controlClient, type SandboxControl } from "./control-client.ts";
import { checkedOptions, type SandboxOptions } from "./options.ts";
import { openSqliteStore, type PersistentStore, type StoreContext } from "./store/sqlite-store.ts";
import { type LoadedState, SandboxStateError } from "./store/state-file.ts";
import { MemoryStore, type Store } from "./store/tables.ts";
import { type PreparedScenario, type ScenarioRun, ScenarioRunner } from "./testmode/scenarios.ts";

/** What `Sandbox.runWorkflow` runs: a shipped workflow, or a document's. */
export interface RunWorkflowInSandbox {
  workflowId?: string;
  document?: ArazzoDocument;
  apiKey?: string;
  inputs?: Record<string, unknown>;
}

export interface Sandbox {
  /** Base URL, e.g. http://127.0.0.1:4020 (no trailing slash). */
  url: string;
  port: number;
  /** Typed client of the control API; pass `headers: { "X-API-Key": … }` for account-scoped calls. */
  control: SandboxControl;
  /**
   * The control client with an account's X-API-Key on every call (none when `apiKey` is undefined). With
   * `{ throwOnError: true }`, every call resolves to `{ data, response }` or throws `ApiError`.
   */
  controlFor(apiKey: string | undefined, options: { throwOnError: true }): SandboxControl<true>;
  controlFor(apiKey?: string, options?: { throwOnError?: false }): SandboxControl;
  /**
   * Runs a workflow in-process, as `POST /_sandbox/scenarios` does: a shipped one by `workflowId`, or `document`'s
   * (its `workflowId`, or every workflow of it in order). Its calls go through the sandbox's handler as the
   * scenario's (logged, never faulted), the clock frozen meanwhile; `apiKey` is the `apiKey` input. Rejects with a
   * WorkflowError naming what is wrong with the document, or the step that failed.
   */
  runWorkflow(options: RunWorkflowInSandbox): Promise<ScenarioRun>;
  /** Closes the server, cancels timers and waits for the last state write. */
  stop(): Promise<void>;
}

/** What a caller may hand the composition root instead of its defaults. */
export interface SandboxParts {
  /** The store of a state file (default: the SQLite store, openSqliteStore). */
  storeFor?: (context: StoreContext) => PersistentStore | Promise<PersistentStore>;
  /** Told what the state file held once it is read, before the sandbox listens (undefined: no file yet). */
  onLoaded?: (loaded: LoadedState | undefined) => void;
}

/** `startSandbox`, with the parts a caller hands in. */
export async function startSandboxWith(options: SandboxOptions, parts: SandboxParts = {}): Promise<Sandbox> {
  const settings = checkedOptions(options);
  let store: Store;
  let startMs = settings.startMs;
  if (settings.state) {
    const file = settings.state;
    const shownAs = displayPath(file);
    // The clock is made once the file is read (it carries on from the file's); commits are stamped with its reading.
    let reading = () => new Date(startMs).toISOString();
    const context: StoreContext = { file, shownAs, seed: settings.seed, clock: () => reading() };
    const opened = await (parts.storeFor ?? openSqliteStore)(context);
    const loaded = opened.loaded;
    if (loaded) startMs = Date.parse(loaded.clock);
    if (loaded && loaded.seed !== settings.seed && options.seed !== undefined) {
      // Nothing changed and the clock reads what the file holds: closing writes nothing.
      await opened.close();
      throw new SandboxStateError(
        `sandbox state file ${shownAs} was written with seed ${loaded.seed}, not ${settings.seed}; it was left untouched (drop --seed or pass --seed ${loaded.seed})`,
      );
    }
    parts.onLoaded?.(loaded);
    store = opened;
    const clock = new SandboxClock(startMs, settings.speed);
    reading = () => clock.iso();
    return serve(settings, store, clock);
  }
  store = new MemoryStore(settings.seed);
  return serve(settings, store, new SandboxClock(startMs, settings.speed));
}

async function serve(settings: ReturnType<typeof checkedOptions>, store: Store, clock: SandboxClock): Promise<Sandbox> {
  // Start scenarios run at the start reading itself (so a fixed startTime and seed give the same ids every run).
  if (settings.frozen || settings.scenarios.length > 0) clock.freezeAtStart();
  const router = sandboxRouter();
  // A scenario's file is read (and checked) before the sandbox listens, so a bad one stops nothing running.
  // Preparing reads and checks against the contracts only: the runner that runs them is the test mode's, below.
  const preparer = new ScenarioRunner({ router, clock, wake: async () => undefined, mark: () => undefined });
  const startScenarios: PreparedScenario[] = [];
  try {
    for (const entry of settings.scenarios) startScenarios.push(await preparer.prepareEntry(entry));
  } catch (error) {
    await store.close();
    throw error;
  }
  const server = createServer();
  server.keepAliveTimeout = 5_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(settings.port, settings.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const shownHost =
    settings.host === "0.0.0.0" || settings.host === "::"
      ? "127.0.0.1"
      : settings.host.includes(":")
        ? `[${settings.host}]`
        : settings.host;
  const baseUrl = `http://${shownHost}:${port}`;
  // From here to the listener below nothing waits: no request is taken before the sandbox can answer it.
  const { engine, testMode, listener } = assembleSandbox(router, store, clock, {
    cardIssuingSeconds: settings.cardIssuingSeconds,
    kybReviewSeconds: settings.kybReviewSeconds,
    webhookTimeoutMs: settings.webhookTimeoutMs,
    webhooks: settings.webhooks,
    baseUrl: () => baseUrl,
    receivers: { ownPort: () => port, allowPrivate: settings.allowPrivateReceivers },
    requestLogSize: settings.requestLogSize,
    faults: settings.faults,
  });
  // The dashboard answers a browser at / and its own files; every other request is the API's. Neither sees
  // a request for another host, nor one to the control API or the dashboard from another origin.
  const boundary = createBoundary(settings.host, settings.allowedHosts);
  const dashboard = createDashboard();
  server.on("request", (request, response) => {
    if (boundary.refuse(request, response)) return;
    if (!dashboard.handle(request, response)) listener(request, response);
  });
  // Work that fell due while the sandbox was down runs now, as it would have on a real clock.
  engine.runDueNow().catch(() => undefined);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await engine.stop();
      await store.close();
    })();
    return stopping;
  };
  try {
    for (const scenario of startScenarios) await testMode.scenarios.run(scenario, settings.scenarioApiKey);
  } catch (error) {
    await stop();
    throw error;
  }
  if (settings.scenarios.length > 0 && !settings.frozen) {
    clock.resume();
    await engine.runDueNow();
  }

  const controlFor = ((apiKey?: string, options: { throwOnError?: boolean } = {}) =>
    controlClient(
      baseUrl,
      { ...(apiKey !== undefined ? { apiKey } : {}), ...options },
      sandboxRouter,
    )) as Sandbox["controlFor"];
  const runWorkflow = async ({ workflowId, document, apiKey, inputs }: RunWorkflowInSandbox): Promise<ScenarioRun> => {
    let prepared: PreparedScenario | undefined;
    if (document !== undefined)
      prepared = testMode.scenarios.preparePosted(
        checkArazzoShape(document, "the document", router),
        "the document",
        workflowId,
      );
    else {
      prepared = workflowId === undefined ? undefined : testMode.scenarios.prepareShipped(workflowId);
      if (!prepared)
        throw new WorkflowError(
          `runWorkflow: workflowId must be a shipped workflow (${testMode.scenarios
            .shipped()
            .map((scenario) => scenario.name)
            .join(", ")}) or come with a document, got ${JSON.stringify(workflowId)}`,
        );
    }
    return testMode.scenarios.run(prepared, apiKey, inputs);
  };
  return { url: baseUrl, port, control: controlFor(), controlFor, runWorkflow, stop };
}
