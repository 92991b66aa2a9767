/**
 * `partner-api sandbox trigger <event type>`: makes an event fire by running the shipped workflow that causes it
 * (openapi/workflows/: the first whose `x-webhooks` lists it).
 */
import { webhookEventTypes } from "partner-api-client";
import { shippedWorkflows } from "../../arazzo/document.ts";
import { sandboxRouter } from "../../sandbox/index.ts";
import { defineCommand, describeValue, JobFailure, UsageError } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect, JSON_USAGE, printJson } from "./connection.ts";

/** The shipped workflow a trigger of `type` runs: the first whose `x-webhooks` lists it. */
export function triggerWorkflow(type: string): string | undefined {
  for (const [id, { workflow }] of shippedWorkflows(sandboxRouter()))
    if (workflow["x-webhooks"]?.includes(type)) return id;
  return undefined;
}

export function triggerCommand(name: string) {
  return defineCommand({
    name,
    summary: "makes an event type fire by doing what causes it (a company onboarded, a route opened…)",
    usage: `Usage: ${name} <event type> [--url <url>] [--api-key <key>] [--json]

Event types: ${webhookEventTypes.join(", ")}.
Runs the shipped workflow that causes the event as a scenario (the first whose x-webhooks lists it; a new
company each time), then prints every event it fired; each goes to the account's webhook endpoints
subscribed to its type.

Options:
${CONNECTION_USAGE}
${JSON_USAGE}`,
    options: { ...CONNECTION, json: { type: "boolean" } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, io }) {
      const [type] = positionals as [string];
      const workflowId = webhookEventTypes.includes(type as (typeof webhookEventTypes)[number])
        ? triggerWorkflow(type)
        : undefined;
      if (workflowId === undefined)
        throw new UsageError(`unknown event type ${describeValue(type)}; known: ${webhookEventTypes.join(", ")}`);
      const connection = connect(values);
      const before = await call(connection, "trigger", () => connection.control.GET("/_sandbox/events"));
      const seen = new Set(before.data.events.map((event) => event.id));
      await call(connection, `trigger ${type} (workflow ${workflowId})`, () =>
        connection.control.POST("/_sandbox/scenarios", { body: { name: workflowId } }),
      );
      const after = await call(connection, "trigger", () => connection.control.GET("/_sandbox/events"));
      const fired = after.data.events.filter((event) => !seen.has(event.id)).reverse();
      if (values.json) printJson(io, fired);
      else
        for (const event of fired) io.out(`${event.id} ${event.type} ${JSON.stringify(event.payload).slice(0, 120)}`);
      if (!fired.some((event) => event.type === type)) throw new JobFailure(`${type} did not fire`);
      return `fired ${fired.length} event(s), ${type} among them (workflow ${workflowId})`;
    },
  });
}
