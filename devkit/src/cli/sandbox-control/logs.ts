/** `partner-api sandbox logs [--follow]`: the calls the sandbox answered (its request log), followed live on request. */
import { EventStreamError, readServerSentEvents } from "../../sse.ts";
import { defineCommand, JobFailure, parseInteger } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect, type Schemas } from "./connection.ts";

type SandboxRequest = Schemas["SandboxRequest"];

/** One request log entry as a line: time, status, method, path, operation, duration, fault. */
export function describeRequest(entry: SandboxRequest): string {
  const fault = entry.fault
    ? ` [fault ${[entry.fault.status, entry.fault.drop && "dropped", entry.fault.malformed && "malformed", entry.fault.delayMs && `+${entry.fault.delayMs} ms`].filter(Boolean).join(" ")}]`
    : "";
  const contract = entry.contract && !entry.contract.valid ? " [answer off contract]" : "";
  const path = entry.query ? `${entry.path}?${entry.query}` : entry.path;
  return `${entry.at} ${entry.status ?? "---"} ${entry.method} ${path} ${entry.operationId ?? "(no operation)"} ${entry.durationMs} ms${fault}${contract}`;
}

export function logsCommand(name: string) {
  return defineCommand({
    name,
    summary: "prints the calls the sandbox answered (the request log); --follow keeps printing new ones",
    usage: `Usage: ${name} [--follow] [--operation-id <id>] [--status <code>] [--limit <n>] [--all-accounts]
       [--url <url>] [--api-key <key>] [--json]

One line a call, oldest first: time, status, method, path, operation, duration, the fault that struck it.

Options:
  --follow             keep printing calls as they are answered, until Ctrl-C
  --operation-id <id>  only calls of this operation
  --status <code>      only calls answered with this status
  --limit <n>          the newest n to start with (default 20, at most 1000)
  --all-accounts       every account's calls (sends no API key)
${CONNECTION_USAGE}
  --json               print each entry as one line of JSON instead`,
    options: {
      ...CONNECTION,
      follow: { type: "boolean" },
      "operation-id": { type: "string" },
      status: { type: "string" },
      limit: { type: "string" },
      "all-accounts": { type: "boolean" },
      json: { type: "boolean" },
    },
    async run({ values, io, signal }) {
      const limit = parseInteger(values.limit, "--limit", 1, 1000) ?? 20;
      const status = parseInteger(values.status, "--status", 100, 599);
      const connection = connect(values, values["all-accounts"]);
      const filter = {
        ...(values["operation-id"] !== undefined ? { operationId: values["operation-id"] } : {}),
        ...(status !== undefined ? { status } : {}),
      };
      const query = { limit, ...filter };
      const print = (entry: SandboxRequest) => io.out(values.json ? JSON.stringify(entry) : describeRequest(entry));
      const { data } = await call(connection, "logs", () =>
        connection.control.GET("/_sandbox/requests", { params: { query } }),
      );
      const recent = [...data.requests].reverse();
      for (const entry of recent) print(entry);
      if (!values.follow) return `${recent.length} of ${data.count} call(s)`;

      const last = recent.at(-1);
      io.err(`following ${new URL(connection.url).origin}'s request log (Ctrl-C stops)`);
      let followed = 0;
      try {
        const { data: body } = await call(connection, "logs --follow", () =>
          connection.control.GET("/_sandbox/requests/stream", {
            params: { query: filter, header: last ? { "Last-Event-ID": last.id } : {} },
            headers: { accept: "text/event-stream" },
            parseAs: "stream",
            signal,
          }),
        );
        if (!body) throw new JobFailure("logs --follow: the sandbox answered the request stream with no body");
        for await (const event of readServerSentEvents(body)) {
          if (event.event !== "request") continue;
          let entry: SandboxRequest;
          try {
            entry = JSON.parse(event.data) as SandboxRequest;
          } catch {
            throw new JobFailure(
              `logs --follow: the request stream sent an event that is not JSON (${event.data.length} characters, id ${event.id ?? "none"})`,
            );
          }
          followed++;
          print(entry);
        }
      } catch (error) {
        if (signal.aborted) return `followed ${followed} call(s)`;
        if (error instanceof EventStreamError) throw new JobFailure(`logs --follow: ${error.message}`);
        throw error;
      }
      return `followed ${followed} call(s)`;
    },
  });
}
