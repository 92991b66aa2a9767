/** `partner-api sandbox clock`: read the sandbox clock, advance it by a duration or to a time, freeze or resume it. */
import { formatDuration, parseDuration } from "../../common/duration.ts";
import { type CommandGroup, defineCommand, describeValue, UsageError } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect, JSON_USAGE, printJson, type Schemas } from "./connection.ts";

export function describeClock(clock: Schemas["Clock"]): string {
  const pending =
    clock.pendingTasks === 0 ? "nothing pending" : `${clock.pendingTasks} pending, next due ${clock.nextDueAt}`;
  return `clock ${clock.now} (${clock.frozen ? "frozen" : clock.speed === 1 ? "running" : `running at ${clock.speed}x`}), ${clock.status}: ${pending}`;
}

export function clockCommands(name: string): CommandGroup {
  const simple = (verb: "status" | "freeze" | "resume", summary: string) =>
    defineCommand({
      name: `${name} ${verb}`,
      summary,
      usage: `Usage: ${name} ${verb} [--url <url>] [--json]\n\nOptions:\n${CONNECTION_USAGE}\n${JSON_USAGE}`,
      options: { ...CONNECTION, json: { type: "boolean" } },
      async run({ values, io }) {
        const connection = connect(values);
        const { data } = await call(connection, `clock ${verb}`, () =>
          verb === "status"
            ? connection.control.GET("/_sandbox/clock")
            : connection.control.POST(verb === "freeze" ? "/_sandbox/clock/freeze" : "/_sandbox/clock/resume"),
        );
        if (values.json) printJson(io, data);
        else io.out(describeClock(data));
        return `clock ${verb === "status" ? "read" : verb === "freeze" ? "frozen" : "resumed"}`;
      },
    });
  return {
    name,
    summary: "read the sandbox clock, advance it by a duration or to a time, freeze or resume it",
    default: "status",
    commands: {
      status: simple("status", "the clock's reading, whether it is frozen, and whether all due work has run"),
      advance: defineCommand({
        name: `${name} advance`,
        summary: "moves the clock forward; every transition and webhook retry falling due runs before it returns",
        usage: `Usage: ${name} advance <duration | time> [--url <url>] [--json]

<duration> is 90s, 30m, 1h, 2d, 1h30m, 500ms or plain seconds; <time> an ISO 8601 time to move to
(not earlier than the clock, at most a year ahead).

Options:
${CONNECTION_USAGE}
${JSON_USAGE}`,
        options: { ...CONNECTION, json: { type: "boolean" } },
        positionals: { min: 1, max: 1 },
        async run({ values, positionals, io }) {
          const [when] = positionals as [string];
          const ms = parseDuration(when);
          const to =
            ms === undefined && /^\d{4}-\d{2}-\d{2}T/.test(when) && !Number.isNaN(Date.parse(when)) ? when : undefined;
          if (ms === undefined && to === undefined)
            throw new UsageError(
              `${describeValue(when)} is neither a duration (90s, 30m, 1h, 2d, 1h30m) nor an ISO 8601 time (2026-11-23T09:00:00Z)`,
            );
          const connection = connect(values);
          const body = to !== undefined ? { to } : { seconds: ms! / 1000 };
          const { data } = await call(connection, "clock advance", () =>
            connection.control.POST("/_sandbox/clock/advance", { body }),
          );
          if (values.json) printJson(io, data);
          else io.out(describeClock(data));
          return `clock advanced ${to !== undefined ? `to ${to}` : `by ${formatDuration(ms!)}`}`;
        },
      }),
      freeze: simple("freeze", "stops the clock at its reading until it is advanced or resumed"),
      resume: simple("resume", "lets a frozen clock follow real time again from its reading"),
    },
  };
}
