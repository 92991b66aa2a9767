/** `partner-api sandbox terms <companyId>`: accepts (or withdraws) a company's terms of service. */
import { defineCommand } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect } from "./connection.ts";

export function termsCommand(name: string) {
  return defineCommand({
    name,
    summary: "accepts a company's terms of service (or withdraws them with --decline)",
    usage: `Usage: ${name} <companyId> [--decline] [--url <url>] [--api-key <key>]

Options:
  --decline            set the terms back to not accepted
${CONNECTION_USAGE}`,
    options: { ...CONNECTION, decline: { type: "boolean" } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, io }) {
      const [companyId] = positionals as [string];
      const connection = connect(values);
      const tosAccepted = !values.decline;
      const { data } = await call(connection, `terms ${companyId}`, () =>
        connection.control.POST("/_sandbox/companies/{companyId}/terms-acceptance", {
          params: { path: { companyId } },
          body: { tosAccepted },
        }),
      );
      io.out(
        `company ${companyId} (${data.company.name}): terms ${tosAccepted ? "accepted" : "not accepted"}, kycStatus ${data.company.swap?.kycStatus}`,
      );
      return tosAccepted ? "terms accepted" : "terms declined";
    },
  });
}
