/** The control API's own pieces: resetting the sandbox and reading and advancing its clock. */
import { defineFlow } from "../flow.ts";

export const sandbox = defineFlow()({
  name: "reset and clock",
  partner: {},
  control: {
    resetSandbox(call) {
      call.engine.reset();
      return { status: 204 };
    },

    getClock(call) {
      return { status: 200, body: { now: call.engine.now() } };
    },

    async advanceClock(call) {
      await call.engine.advance(call.body.seconds * 1000);
      return { status: 200, body: { now: call.engine.now() } };
    },
  },
  tasks: {},
});
