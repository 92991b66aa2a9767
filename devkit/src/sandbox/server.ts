/**
 * HTTP in front of the engine: every request is routed and validated from the contracts (contract.ts), then
 * handed to its operation's handler; a change is on disk (with a state file) before its response is sent.
 * Invalid requests get the status codes `npm run mock` (Prism) gives them: 404 for an unknown path, 405 for
 * an unknown method, 401 without X-API-Key, 400 for malformed JSON, 415 (422 where the operation declares 422)
 * for a wrong content type, 422 for a bad parameter or body. What the sandbox takes beyond the contract's
 * rules (limits.ts) is refused before anything changes: 413 for a body over 1 MiB (Prism's limit is 10 MB),
 * 422 for JSON nested too deep or a string too long. The steps a request goes through, in order, are
 * http/pipeline.ts; test mode wraps them (http/test-mode.ts); answers are written by http/answer.ts.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ContractRouter, Operation } from "../contract/router.ts";
import type { SandboxEngine } from "./engine.ts";
import { exampleHandler } from "./example-answers.ts";
import { SandboxProblem } from "./flows/flow.ts";
import { CONTROL_HANDLERS, PARTNER_HANDLERS, type Task } from "./flows/index.ts";
import { problemReply, send } from "./http/answer.ts";
import { type Front, Pass, PIPELINE, type RoutedHandler, run } from "./http/pipeline.ts";
import { RequestGone } from "./http/request.ts";
import { withTestMode } from "./http/test-mode.ts";
import { newAccountQuota } from "./origin-quota.ts";
import { StateNotSavedError } from "./store/errors.ts";
import type { TestMode } from "./testmode/index.ts";

/**
 * Each operation's handler, from the flows' typed maps by operationId; a handler of the other API never
 * answers an operation of one (the partner's and the control API's are looked up apart). One without a handler
 * answers its contract example, marked as such.
 */
function handlersByOperation(router: ContractRouter): Map<Operation, RoutedHandler> {
  // Typed per operation in the flows; here they are looked up by the name the router found.
  const maps = { partner: PARTNER_HANDLERS, control: CONTROL_HANDLERS } as Record<
    Operation["api"],
    Record<string, RoutedHandler>
  >;
  const byOperation = new Map<Operation, RoutedHandler>();
  for (const operation of router.operations) {
    const handlers = maps[operation.api];
    // An operation no flow handles yet is answered from the contract's examples (example-answers.ts).
    byOperation.set(
      operation,
      Object.hasOwn(handlers, operation.operationId)
        ? handlers[operation.operationId]!
        : exampleHandler(router.documents.get(operation.api), operation),
    );
  }
  return byOperation;
}

export function createRequestListener(router: ContractRouter, engine: SandboxEngine<Task>, testMode: TestMode) {
  const front: Front = {
    router,
    engine,
    testMode,
    handlers: handlersByOperation(router),
    // New accounts from other sites' pages, bounded per origin on the sandbox's clock (origin-quota.ts).
    newAccounts: newAccountQuota(() => engine.clock.now()),
    partnerPaths: router.operations.filter((known) => known.api === "partner").map((known) => known.path),
  };
  const steps = withTestMode(PIPELINE);
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const pass = new Pass(request, response);
    try {
      const pending = run(steps, pass, front);
      if (pending) await pending;
      if (pass.reply) send(pass, pass.reply);
    } catch (error) {
      answerError(pass, error);
    }
  };
}

/** A step's error as an answer: its problem document, 503 for a change not saved, 500 for a bug of the sandbox's. */
function answerError(pass: Pass, error: unknown): void {
  // Dropped, not answered: an error of the sender's, not a 500 of the sandbox's in its log.
  if (error instanceof RequestGone) pass.response.destroy();
  else if (error instanceof SandboxProblem) send(pass, problemReply(error));
  else if (error instanceof StateNotSavedError)
    send(pass, problemReply(new SandboxProblem(503, "not-saved", "Change not saved", error.message)));
  else {
    pass.operation = undefined;
    send(pass, problemReply(new SandboxProblem(500, "internal", "Sandbox error", (error as Error).message)));
  }
}
