/**
 * The control API's own pieces: resetting the sandbox, and the clock (reading it with its status, advancing
 * it by seconds or to a time, freezing and resuming it).
 */
import { CLOCK_RANGE, CLOCK_RANGE_TEXT } from "../clock.ts";
import { peekTask } from "../due.ts";
import type { SandboxEngine } from "../engine.ts";
import { defineFlow, unprocessable } from "../flow.ts";
import { testModeOf } from "../testmode/index.ts";

/** The longest move of `advanceClock` (a year), as its `seconds` is bounded. */
const MAX_ADVANCE_MS = 31_536_000_000;

/** The clock's reading and whether all due work has run. */
function clockStatus(engine: SandboxEngine) {
  const { clock, state } = engine;
  const now = clock.now();
  const next = peekTask(state.tasks);
  return {
    now: new Date(now).toISOString(),
    frozen: clock.frozen,
    speed: clock.speed,
    status: engine.busy || (next !== undefined && next.dueAt <= now) ? ("advancing" as const) : ("ready" as const),
    pendingTasks: state.tasks.length,
    nextDueAt: next ? new Date(next.dueAt).toISOString() : null,
  };
}

export const sandbox = defineFlow()({
  name: "reset and clock",
  partner: {},
  control: {
    resetSandbox(call) {
      call.engine.reset();
      testModeOf(call.engine)?.reset();
      return { status: 204 };
    },

    getClock(call) {
      return { status: 200, body: clockStatus(call.engine) };
    },

    async advanceClock(call) {
      const { engine, body } = call;
      let ms: number;
      if (body.to !== undefined) {
        const to = Date.parse(body.to);
        const now = engine.clock.now();
        const reading = new Date(now).toISOString();
        if (to < now)
          throw unprocessable(
            `to ${body.to} is earlier than the clock's reading ${reading}: the clock never goes back`,
          );
        if (to - now > MAX_ADVANCE_MS)
          throw unprocessable(`to ${body.to} is more than a year ahead of the clock's reading ${reading}`);
        ms = to - now;
      } else ms = (body.seconds ?? 0) * 1000;
      const target = engine.clock.now() + ms;
      if (target > CLOCK_RANGE.max)
        throw unprocessable(
          `the clock would read ${Number.isFinite(target) && target < 8.64e15 ? new Date(target).toISOString() : "past year 275760"}, outside the sandbox clock's range (${CLOCK_RANGE_TEXT})`,
        );
      await engine.advance(ms);
      return { status: 200, body: clockStatus(engine) };
    },

    async freezeClock(call) {
      call.engine.clock.freeze();
      await call.engine.runDueNow();
      return { status: 200, body: clockStatus(call.engine) };
    },

    async resumeClock(call) {
      call.engine.clock.resume();
      await call.engine.runDueNow();
      return { status: 200, body: clockStatus(call.engine) };
    },
  },
  tasks: {},
});
