/** `partner-api sandbox faults add|list|remove|clear`: make partner API calls fail on purpose. */
import { describeFault } from "../../dashboard/page/format.js";
import { type CommandGroup, defineCommand, describeValue, UsageError } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect, optionalInteger, type Schemas } from "./connection.ts";

export function faultCommands(name: string): CommandGroup {
  const listing = `Options:\n  --all-accounts       the whole sandbox's faults (sends no API key)\n${CONNECTION_USAGE}`;
  return {
    name,
    summary: "make partner API calls fail on purpose: add, list, remove and clear faults",
    commands: {
      add: defineCommand({
        name: `${name} add`,
        summary: "registers a fault for the account (or, with --all-accounts, for every account)",
        usage: `Usage: ${name} add (--operation-id <id> | [--method <m>] --path <template>)
       (--status <code> [--retry-after <s>] [--body <json>] | --drop | --malformed) [--delay-ms <ms>]
       [--times <n>] [--probability <p>] [--all-accounts] [--url <url>] [--api-key <key>]

e.g. ${name} add --operation-id listCardBins --status 503 --times 1

Options:
  --operation-id <id>  the partner API operation to fail (e.g. createCard)
  --method, --path     or a method and path template (/v1/cards/{cardId}/unfreeze)
  --status <code>      answer with this status instead (the operation does not run)
  --retry-after <s>    with --status, send Retry-After: <s>
  --body <json>        with --status, this JSON body instead of a problem naming the fault
  --delay-ms <ms>      answer this much later (with the others, or alone)
  --drop               close the connection without an answer
  --malformed          let the operation run and cut its answer's body short
  --times <n>          fail the next n matching calls only
  --probability <p>    fail each matching call with chance p (0 < p ≤ 1; seeded)
${listing}`,
        options: {
          ...CONNECTION,
          "operation-id": { type: "string" },
          method: { type: "string" },
          path: { type: "string" },
          status: { type: "string" },
          "retry-after": { type: "string" },
          body: { type: "string" },
          "delay-ms": { type: "string" },
          drop: { type: "boolean" },
          malformed: { type: "boolean" },
          times: { type: "string" },
          probability: { type: "string" },
          "all-accounts": { type: "boolean" },
        },
        async run({ values, io }) {
          let body: unknown;
          if (values.body !== undefined) {
            try {
              body = JSON.parse(values.body);
            } catch (error) {
              throw new UsageError(`--body must be JSON: ${(error as Error).message}`);
            }
          }
          const probability = values.probability === undefined ? undefined : Number(values.probability);
          if (probability !== undefined && !(probability > 0 && probability <= 1))
            throw new UsageError(
              `--probability must be above 0 and at most 1, got ${describeValue(values.probability)}`,
            );
          const fault: Schemas["CreateFaultRequest"] = {
            ...(values["operation-id"] !== undefined ? { operationId: values["operation-id"] } : {}),
            ...(values.method !== undefined ? { method: values.method.toUpperCase() as "GET" } : {}),
            ...(values.path !== undefined ? { path: values.path } : {}),
            ...optionalInteger(values.status, "--status", "status", 200, 599),
            ...optionalInteger(values["retry-after"], "--retry-after", "retryAfter", 0, 86_400),
            ...(body !== undefined ? { body } : {}),
            ...optionalInteger(values["delay-ms"], "--delay-ms", "delayMs", 0, 60_000),
            ...(values.drop ? { drop: true as const } : {}),
            ...(values.malformed ? { malformed: true as const } : {}),
            ...optionalInteger(values.times, "--times", "times", 1, 1_000_000),
            ...(probability !== undefined ? { probability } : {}),
          } as Schemas["CreateFaultRequest"];
          const connection = connect(values, values["all-accounts"]);
          const { data } = await call(connection, "faults add", () =>
            connection.control.POST("/_sandbox/faults", { body: fault }),
          );
          io.out(describeFault(data));
          return `fault ${data.id} added`;
        },
      }),
      list: defineCommand({
        name: `${name} list`,
        summary: "lists the faults the account sees (its own and the sandbox-wide ones)",
        usage: `Usage: ${name} list [--all-accounts] [--url <url>] [--api-key <key>]\n\n${listing}`,
        options: { ...CONNECTION, "all-accounts": { type: "boolean" } },
        async run({ values, io }) {
          const connection = connect(values, values["all-accounts"]);
          const { data } = await call(connection, "faults list", () => connection.control.GET("/_sandbox/faults"));
          for (const fault of data.faults) io.out(describeFault(fault));
          return `${data.faults.length} fault(s)`;
        },
      }),
      remove: defineCommand({
        name: `${name} remove`,
        summary: "removes one fault by id",
        usage: `Usage: ${name} remove <faultId> [--all-accounts] [--url <url>] [--api-key <key>]\n\n${listing}`,
        options: { ...CONNECTION, "all-accounts": { type: "boolean" } },
        positionals: { min: 1, max: 1 },
        async run({ values, positionals }) {
          const [faultId] = positionals as [string];
          const connection = connect(values, values["all-accounts"]);
          await call(connection, `faults remove ${faultId}`, () =>
            connection.control.DELETE("/_sandbox/faults/{faultId}", { params: { path: { faultId } } }),
          );
          return `fault ${faultId} removed`;
        },
      }),
      clear: defineCommand({
        name: `${name} clear`,
        summary: "removes the account's faults (with --all-accounts, every fault)",
        usage: `Usage: ${name} clear [--all-accounts] [--url <url>] [--api-key <key>]\n\n${listing}`,
        options: { ...CONNECTION, "all-accounts": { type: "boolean" } },
        async run({ values }) {
          const connection = connect(values, values["all-accounts"]);
          await call(connection, "faults clear", () => connection.control.DELETE("/_sandbox/faults"));
          return values["all-accounts"] ? "every fault removed" : "the account's faults removed";
        },
      }),
    },
  };
}
