/** `partner-api sandbox kyc <companyId> <status>`: sets a company's verification status. */
import { defineCommand } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect, type Schemas } from "./connection.ts";

export function kycCommand(name: string) {
  return defineCommand({
    name,
    summary: "sets a company's verification status (company.kyc_status_changed fires on a change)",
    usage: `Usage: ${name} <companyId> <status> [--url <url>] [--api-key <key>]

<status>: ${["not_started", "incomplete", "awaiting_questionnaire", "awaiting_ubo", "under_review", "approved", "rejected", "paused", "offboarded"].join(", ")}.
The company must have been onboarded with Swap.

Options:
${CONNECTION_USAGE}`,
    options: CONNECTION,
    positionals: { min: 2, max: 2 },
    async run({ values, positionals, io }) {
      const [companyId, kycStatus] = positionals as [string, Schemas["KycStatus"]];
      const connection = connect(values);
      const { data } = await call(connection, `kyc ${companyId}`, () =>
        connection.control.POST("/_sandbox/companies/{companyId}/kyc-status", {
          params: { path: { companyId } },
          body: { kycStatus },
        }),
      );
      io.out(
        `company ${companyId} (${data.company.name}): kycStatus ${data.company.swap?.kycStatus}, terms ${data.company.swap?.tosAccepted ? "accepted" : "not accepted"}`,
      );
      return `verification set to ${kycStatus}`;
    },
  });
}
