/** `partner-api sandbox route open <companyId> <onramp|offramp>`: opens a payment route. */
import { type CommandGroup, defineCommand, describeValue, UsageError } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect, JSON_USAGE, printJson, type Schemas } from "./connection.ts";

export function routeCommands(name: string): CommandGroup {
  return {
    name,
    summary: "open payment routes",
    commands: {
      open: defineCommand({
        name: `${name} open`,
        summary: "opens an on-ramp or off-ramp route for a company (payment_route.created fires)",
        usage: `Usage: ${name} open <companyId> <onramp|offramp> [--currency <code>] [--fee <percent>] [--inactive]
       [--force] [--url <url>] [--api-key <key>] [--json]

A route opens only for a company whose verification is approved and whose terms are accepted;
--force opens it anyway.

Options:
  --currency <code>    the settlement currency (default USDC on-ramp, USD off-ramp)
  --fee <percent>      the route's fee, 0 to 100 (default 0.5)
  --inactive           open it inactive (it refuses deposits)
  --force              open it although the company is not cleared
${CONNECTION_USAGE}
${JSON_USAGE}`,
        options: {
          ...CONNECTION,
          currency: { type: "string" },
          fee: { type: "string" },
          inactive: { type: "boolean" },
          force: { type: "boolean" },
          json: { type: "boolean" },
        },
        positionals: { min: 2, max: 2 },
        async run({ values, positionals, io }) {
          const [companyId, type] = positionals as [string, string];
          if (type !== "onramp" && type !== "offramp")
            throw new UsageError(`the route type must be onramp or offramp, got ${describeValue(type)}`);
          const feePercent = values.fee === undefined ? undefined : Number(values.fee);
          if (feePercent !== undefined && !(feePercent >= 0 && feePercent <= 100))
            throw new UsageError(`--fee must be a percentage from 0 to 100, got ${describeValue(values.fee)}`);
          const connection = connect(values);
          const { data } = await call(connection, `route open ${companyId}`, () =>
            connection.control.POST("/_sandbox/companies/{companyId}/payment-routes", {
              params: { path: { companyId } },
              // Fields left out take the control contract's defaults.
              body: {
                type,
                ...(values.currency !== undefined ? { currency: values.currency } : {}),
                ...(feePercent !== undefined ? { feePercent } : {}),
                ...(values.inactive ? { status: "inactive" as const } : {}),
                ...(values.force ? { force: true } : {}),
              } as Schemas["CreatePaymentRouteRequest"],
            }),
          );
          const route = data.paymentRoute ?? {};
          if (values.json) printJson(io, data);
          else
            io.out(
              `route ${route.id}: ${route.type} ${route.status}, ${route.source?.currency} → ${route.currency}, fee ${route.feePercent} %, deposit address ${route.depositAddress}`,
            );
          return `${type} route opened`;
        },
      }),
    },
  };
}
