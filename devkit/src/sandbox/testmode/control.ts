/**
 * The control operations of test mode, as a flow: faults, the request log (listed, cleared and streamed) and
 * scenarios, through the test mode each call is given (`call.testMode`).
 */
import type { ServerResponse } from "node:http";
import { WorkflowError } from "../../arazzo/document.ts";
import { defineFlow, SandboxProblem, type TestModeAccess, unprocessable } from "../flows/flow.ts";
import { FaultInputError } from "./faults.ts";
import { accountFingerprint, MAX_STREAM_BUFFER_BYTES, type RequestFilter } from "./log.ts";
import type { PreparedScenario } from "./scenarios.ts";

/** How often an idle request stream sends a comment, so proxies and clients keep it open. */
const STREAM_KEEPALIVE_MS = 15_000;
const DEFAULT_LIST_LIMIT = 100;

interface Caller {
  testMode: TestModeAccess;
  apiKey?: string;
}

/** The account a call acts for, by fingerprint; undefined without an API key (the whole sandbox). */
function ownerOf(call: Caller): string | undefined {
  return call.apiKey === undefined ? undefined : accountFingerprint(call.apiKey);
}

function modeOf(call: Caller): TestModeAccess {
  return call.testMode;
}

function filterOf(
  call: Caller & { params: { operationId?: string; status?: number; api?: RequestFilter["api"]; since?: string } },
): RequestFilter {
  const { operationId, status, api, since } = call.params;
  return {
    account: ownerOf(call),
    operationId,
    status,
    api,
    sinceMs: since === undefined ? undefined : Date.parse(since),
  };
}

export const testModeFlow = defineFlow()({
  name: "test mode: faults, the request log, scenarios",
  partner: {},
  control: {
    createFault(call) {
      try {
        return { status: 201, body: modeOf(call).faults.add(call.body, ownerOf(call)) };
      } catch (error) {
        if (error instanceof FaultInputError) throw unprocessable(error.message);
        throw error;
      }
    },

    listFaults(call) {
      return { status: 200, body: { faults: modeOf(call).faults.list(ownerOf(call)) } };
    },

    deleteFaults(call) {
      modeOf(call).faults.clear(ownerOf(call));
      return { status: 204 };
    },

    deleteFault(call) {
      const id = call.params.faultId;
      if (!modeOf(call).faults.remove(id, ownerOf(call)))
        throw new SandboxProblem(
          404,
          "not-found",
          "Not found",
          `fault ${id} does not exist (or belongs to another account)`,
        );
      return { status: 204 };
    },

    listRequests(call) {
      return { status: 200, body: modeOf(call).log.list(filterOf(call), call.params.limit ?? DEFAULT_LIST_LIMIT) };
    },

    deleteRequests(call) {
      modeOf(call).log.clear(ownerOf(call));
      return { status: 204 };
    },

    streamRequests(call) {
      const { log } = modeOf(call);
      const filter = filterOf(call);
      const refusal = log.streamRefusal(filter.account);
      if (refusal !== undefined) throw new SandboxProblem(503, "too-many-streams", "Too many request streams", refusal);
      const after = call.params["Last-Event-ID"];
      return {
        status: 200,
        stream(response: ServerResponse) {
          let open = true;
          // A client that does not keep up is let go rather than buffered for: it may come back with Last-Event-ID.
          const write = (text: string) => {
            if (!open) return;
            if (response.writableLength + text.length > MAX_STREAM_BUFFER_BYTES) {
              open = false;
              response.destroy();
              return;
            }
            response.write(text);
          };
          const keepAlive = setInterval(() => write(": keep-alive\n\n"), STREAM_KEEPALIVE_MS);
          keepAlive.unref?.();
          write(": following the request log\n\n");
          const stop = log.follow(
            { filter, send: (entry, json) => write(`event: request\nid: ${entry.id}\ndata: ${json}\n\n`) },
            after,
          );
          response.once("close", () => {
            open = false;
            clearInterval(keepAlive);
            stop();
          });
        },
      };
    },

    listScenarios(call) {
      return { status: 200, body: { scenarios: modeOf(call).scenarios.shipped() } };
    },

    async runScenario(call) {
      const { scenarios } = modeOf(call);
      const { name, arazzo, workflowId, inputs } = call.body;
      try {
        let prepared: PreparedScenario | undefined;
        if (name !== undefined) {
          prepared = scenarios.prepareShipped(name);
          if (!prepared)
            throw new SandboxProblem(
              404,
              "not-found",
              "Not found",
              `no shipped scenario is called ${JSON.stringify(name)} (${scenarios
                .shipped()
                .map((scenario) => scenario.name)
                .join(", ")})`,
            );
        } else prepared = scenarios.preparePosted(arazzo!, "the posted Arazzo document", workflowId);
        return { status: 200, body: await scenarios.run(prepared, call.apiKey, inputs ?? {}) };
      } catch (error) {
        if (error instanceof WorkflowError)
          throw new SandboxProblem(422, "scenario-failed", "Scenario failed", error.message);
        throw error;
      }
    },
  },
  tasks: {},
});
