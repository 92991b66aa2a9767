/**
 * Test mode around the request pipeline, in one place: it opens an exchange once the call is past a preflight (the
 * request log, the last caller), notes the operation once routed and the body once read, then lets a fault answer
 * for the call, drop it, or delay it before anything else runs, as a failing service would. Each of its steps runs
 * right after the pipeline's step it follows; the pipeline's own steps know nothing of it.
 */
import { SandboxProblem } from "../flows/flow.ts";
import { UNANSWERED } from "../testmode/index.ts";
import { problemReply } from "./answer.ts";
import { type Front, type Pass, preflight, receive, route, type Step } from "./pipeline.ts";

function open(pass: Pass, front: Front): void {
  const exchange = front.testMode.open(pass.request);
  pass.exchange = exchange;
  pass.tap = (status, headers, text) => exchange.answer(status, headers, text);
}

function routed(pass: Pass): void {
  pass.exchange!.routed(pass.operation!);
}

/** The body noted for the log; then the fault that strikes the call, if one does (no turn waited when none). */
function received(pass: Pass): void | Promise<void> {
  const exchange = pass.exchange!;
  exchange.received(pass.raw);
  const striking = exchange.strike(pass.response);
  if (striking === undefined) return;
  return striking.then((struck) => {
    if (struck === UNANSWERED) pass.dropped = true;
    else if (struck) {
      const problem = problemReply(new SandboxProblem(struck.status, "fault", "Fault", struck.detail));
      pass.reply = { ...problem, body: struck.body ?? problem.body, headers: struck.headers };
    }
  });
}

/** Test mode's steps, by the pipeline step each follows. */
const AFTER = new Map<Step, Step>([
  [preflight, open],
  [route, routed],
  [receive, received],
]);

/** The pipeline with test mode's steps in place. */
export function withTestMode(steps: readonly Step[]): Step[] {
  return steps.flatMap((step) => {
    const after = AFTER.get(step);
    return after ? [step, after] : [step];
  });
}
