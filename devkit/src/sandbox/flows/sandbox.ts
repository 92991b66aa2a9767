/**
 * The control API's own pieces: resetting the sandbox, and the clock (reading it with its status, advancing
 * it by seconds or to a time, freezing and resuming it).
 */
import { CLOCK_RANGE, CLOCK_RANGE_TEXT } from "../clock.ts";
import { peekTask } from "../due.ts";
import { defineFlow, type FlowEnv, unprocessable } from "./flow.ts";

/** The longest move of `advanceClock` (a year), as its `seconds` is bounded. */
const MAX_ADVANCE_MS = 31_536_000_000;

/** The clock's reading and whether all due work has run. */
function clockStatus(env: FlowEnv) {
  const { clock } = env;
  const now = clock.now();
  const tasks = env.pending();
  const next = peekTask(tasks);
  return {
    now: new Date(now).toISOString(),
    frozen: clock.frozen,
    speed: clock.speed,
    status: env.busy || (next !== undefined && next.dueAt <= now) ? ("advancing" as const) : ("ready" as const),
    pendingTasks: tasks.length,
    nextDueAt: next ? new Date(next.dueAt).toISOString() : null,
  };
}

export const sandbox = defineFlow()({
  name: "reset and clock",
  partner: {},
  control: {
    resetSandbox(call) {
      call.env.reset();
      call.testMode.reset();
      return { status: 204 };
    },

    getClock(call) {
      return { status: 200, body: clockStatus(call.env) };
    },

    async advanceClock(call) {
      const { env, body } = call;
      let ms: number;
      if (body.to !== undefined) {
        const to = Date.parse(body.to);
        const now = env.clock.now();
        const reading = new Date(now).toISOString();
        if (to < now)
          throw unprocessable(
            `to ${body.to} is earlier than the clock's reading ${reading}: the clock never goes back`,
          );
        if (to - now > MAX_ADVANCE_MS)
          throw unprocessable(`to ${body.to} is more than a year ahead of the clock's reading ${reading}`);
        ms = to - now;
      } else ms = (body.seconds ?? 0) * 1000;
      const target = env.clock.now() + ms;
      if (target > CLOCK_RANGE.max)
        throw unprocessable(
          `the clock would read ${Number.isFinite(target) && target < 8.64e15 ? new Date(target).toISOString() : "past year 275760"}, outside the sandbox clock's range (${CLOCK_RANGE_TEXT})`,
        );
      await env.advance(ms);
      return { status: 200, body: clockStatus(env) };
    },

    async freezeClock(call) {
      call.env.clock.freeze();
      await call.env.runDueNow();
      return { status: 200, body: clockStatus(call.env) };
    },

    async resumeClock(call) {
      call.env.clock.resume();
      await call.env.runDueNow();
      return { status: 200, body: clockStatus(call.env) };
    },
  },
  tasks: {},
});
