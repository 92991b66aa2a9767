/** `partner-api sandbox reset`: back to the seeded state. */
import { defineCommand } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect } from "./connection.ts";

export function resetCommand(name: string) {
  return defineCommand({
    name,
    summary: "back to the seeded state: accounts, events, faults and the request log (the clock stays)",
    usage: `Usage: ${name} [--url <url>]\n\nOptions:\n${CONNECTION_USAGE}`,
    options: CONNECTION,
    async run({ values }) {
      const connection = connect(values, true);
      await call(connection, "reset", () => connection.control.POST("/_sandbox/reset"));
      return "sandbox reset";
    },
  });
}
