/**
 * The control operations of test mode and of the clock: faults, the request log (listed and streamed),
 * scenarios, reading, advancing, freezing and resuming the clock, and reset (which resets test mode too).
 */
import type { ServerResponse } from "node:http";
import { type Call, type Reply, SandboxProblem } from "../operations.ts";
import { FaultInputError } from "./faults.ts";
import type { TestMode } from "./index.ts";
import { accountFingerprint, type RequestFilter, type SandboxRequest } from "./log.ts";
import { type Scenario, ScenarioError, shippedScenarios } from "./scenarios.ts";

/** The longest move of `advanceClock` (a year), as its `seconds` is bounded. */
const MAX_ADVANCE_MS = 31_536_000_000;
/** How often an idle request stream sends a comment, so proxies and clients keep it open. */
const STREAM_KEEPALIVE_MS = 15_000;
const DEFAULT_LIST_LIMIT = 100;

export type TestModeHandler = (call: Call) => Reply | Promise<Reply>;

const unprocessable = (detail: string) => new SandboxProblem(422, "unprocessable", "Unprocessable Entity", detail);

/** The account a call acts for, by fingerprint; undefined without an API key (the whole sandbox). */
function ownerOf(call: Call): string | undefined {
  return call.apiKey === undefined ? undefined : accountFingerprint(call.apiKey);
}

function filterOf(call: Call): RequestFilter {
  const { operationId, status, api, since } = call.params;
  return {
    account: ownerOf(call),
    operationId: operationId as string | undefined,
    status: status as number | undefined,
    api: api as RequestFilter["api"],
    sinceMs: since === undefined ? undefined : Date.parse(since as string),
  };
}

export function testModeHandlers(mode: TestMode): Record<string, TestModeHandler> {
  const { engine, faults, log, scenarios, router } = mode;
  return {
    resetSandbox() {
      engine.reset();
      mode.reset();
      return { status: 204 };
    },

    getClock() {
      return { status: 200, body: mode.clockStatus() };
    },

    async advanceClock(call) {
      let ms: number;
      if (call.body.to !== undefined) {
        const to = Date.parse(call.body.to as string);
        const now = engine.clock.now();
        if (to < now)
          throw unprocessable(
            `to ${call.body.to} is earlier than the clock's reading ${new Date(now).toISOString()}: the clock never goes back`,
          );
        if (to - now > MAX_ADVANCE_MS)
          throw unprocessable(
            `to ${call.body.to} is more than a year ahead of the clock's reading ${new Date(now).toISOString()}`,
          );
        ms = to - now;
      } else ms = (call.body.seconds as number) * 1000;
      await engine.advance(ms);
      return { status: 200, body: mode.clockStatus() };
    },

    async freezeClock() {
      engine.clock.freeze();
      await engine.runDueNow();
      return { status: 200, body: mode.clockStatus() };
    },

    async resumeClock() {
      engine.clock.resume();
      await engine.runDueNow();
      return { status: 200, body: mode.clockStatus() };
    },

    createFault(call) {
      try {
        return { status: 201, body: faults.add(call.body, ownerOf(call)) };
      } catch (error) {
        if (error instanceof FaultInputError) throw unprocessable(error.message);
        throw error;
      }
    },

    listFaults(call) {
      return { status: 200, body: { faults: faults.list(ownerOf(call)) } };
    },

    deleteFaults(call) {
      faults.clear(ownerOf(call));
      return { status: 204 };
    },

    deleteFault(call) {
      const id = call.params.faultId as string;
      if (!faults.remove(id, ownerOf(call)))
        throw new SandboxProblem(
          404,
          "not-found",
          "Not found",
          `fault ${id} does not exist (or belongs to another account)`,
        );
      return { status: 204 };
    },

    listRequests(call) {
      return {
        status: 200,
        body: log.list(filterOf(call), (call.params.limit as number | undefined) ?? DEFAULT_LIST_LIMIT),
      };
    },

    deleteRequests(call) {
      log.clear(ownerOf(call));
      return { status: 204 };
    },

    streamRequests(call) {
      const filter = filterOf(call);
      const after = call.params["Last-Event-ID"] as number | undefined;
      return {
        status: 200,
        stream(response: ServerResponse) {
          const send = (entry: SandboxRequest) =>
            response.write(`event: request\nid: ${entry.id}\ndata: ${JSON.stringify(entry)}\n\n`);
          const keepAlive = setInterval(() => response.write(": keep-alive\n\n"), STREAM_KEEPALIVE_MS);
          keepAlive.unref();
          response.write(": following the request log\n\n");
          const stop = log.follow({ filter, send }, after);
          response.once("close", () => {
            clearInterval(keepAlive);
            stop();
          });
        },
      };
    },

    listScenarios() {
      return { status: 200, body: { scenarios: [...shippedScenarios(router).values()] } };
    },

    async runScenario(call) {
      let scenario: Scenario | undefined = call.body.scenario;
      if (call.body.name !== undefined) {
        const shipped = shippedScenarios(router);
        scenario = shipped.get(call.body.name as string);
        if (!scenario)
          throw new SandboxProblem(
            404,
            "not-found",
            "Not found",
            `no shipped scenario is called ${JSON.stringify(call.body.name)} (${[...shipped.keys()].join(", ")})`,
          );
      }
      try {
        return { status: 200, body: await scenarios.run(scenario!, call.apiKey) };
      } catch (error) {
        if (error instanceof ScenarioError)
          throw new SandboxProblem(422, "scenario-failed", "Scenario failed", error.message);
        throw error;
      }
    },
  };
}
