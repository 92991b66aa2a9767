/** `partner-api sandbox events`: the account's webhook events, newest last, with each delivery attempt. */
import { defineCommand, parseInteger } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect, JSON_USAGE, printJson } from "./connection.ts";

export function eventsCommand(name: string) {
  return defineCommand({
    name,
    summary: "lists the account's webhook events, newest last, with each delivery attempt",
    usage: `Usage: ${name} [--type <event type>] [--limit <n>] [--url <url>] [--api-key <key>] [--json]

Options:
  --type <type>        only events of this type
  --limit <n>          the newest n (default 20, at most 1000)
${CONNECTION_USAGE}
${JSON_USAGE}`,
    options: { ...CONNECTION, type: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } },
    async run({ values, io }) {
      const limit = parseInteger(values.limit, "--limit", 1, 1000) ?? 20;
      const connection = connect(values);
      const { data } = await call(connection, "events", () => connection.control.GET("/_sandbox/events"));
      const events = data.events
        .filter((event) => values.type === undefined || event.type === values.type)
        .slice(0, limit)
        .reverse();
      if (values.json) printJson(io, events);
      else
        for (const event of events) {
          const deliveries = event.deliveries.map((d) => `${d.attempt}:${d.statusCode ?? d.error}`).join(" ");
          io.out(
            `${event.createdAt} ${event.type} ${event.id}${deliveries ? `  deliveries ${deliveries}` : "  not delivered (no endpoint)"}`,
          );
        }
      return `${events.length} of ${data.events.length} event(s)`;
    },
  });
}
