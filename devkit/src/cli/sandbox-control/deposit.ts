/** `partner-api sandbox deposit <routeId> <amount>`: makes money land on a route. */
import { defineCommand, describeValue, UsageError } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect, JSON_USAGE, printJson, type Schemas } from "./connection.ts";

export function depositCommand(name: string) {
  return defineCommand({
    name,
    summary: "makes money land on a route: a transaction and payment_route.transaction.created",
    usage: `Usage: ${name} <routeId> <amount> [--sender <name>] [--force] [--url <url>] [--api-key <key>] [--json]

<amount> is in the route's source currency (fiat on an on-ramp, the stablecoin on an off-ramp).

Options:
  --sender <name>      the payer's name (default "Sandbox Payer")
  --force              take it although the route's company is not cleared
${CONNECTION_USAGE}
${JSON_USAGE}`,
    options: { ...CONNECTION, sender: { type: "string" }, force: { type: "boolean" }, json: { type: "boolean" } },
    positionals: { min: 2, max: 2 },
    async run({ values, positionals, io }) {
      const [routeId, amountText] = positionals as [string, string];
      const amount = Number(amountText);
      if (!/^\d+(\.\d+)?$/.test(amountText) || !(amount > 0))
        throw new UsageError(`the amount must be a number above 0, got ${describeValue(amountText)}`);
      const connection = connect(values);
      const { data } = await call(connection, `deposit on ${routeId}`, () =>
        connection.control.POST("/_sandbox/payment-routes/{routeId}/deposits", {
          params: { path: { routeId } },
          body: {
            amount,
            ...(values.sender !== undefined ? { senderName: values.sender } : {}),
            ...(values.force ? { force: true } : {}),
          } as Schemas["CreateDepositRequest"],
        }),
      );
      const transaction = data.transaction ?? {};
      if (values.json) printJson(io, data);
      else
        io.out(
          `transaction ${transaction.id}: ${transaction.type} ${transaction.amount} ${transaction.currency}, ${transaction.status}`,
        );
      return `deposit of ${amountText} landed`;
    },
  });
}
