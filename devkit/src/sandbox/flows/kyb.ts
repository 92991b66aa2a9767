/**
 * Business verification (KYB): a submitted profile is `SUBMITTED`, and its review ends `APPROVED` after the
 * review time on the clock, unless a control call sets a result first. company.kyb_status_changed announces a
 * result that changes a submission's status: not one set on a company that submitted nothing, nor the status it
 * already had.
 */
import type { CompanyRecord } from "../records.ts";
import { actingCompany, apiKeyOf, defineFlow, type FlowEnv, pathCompany } from "./flow.ts";
import type { TaskKinds } from "./tasks.ts";

/** The timed work of KYB. */
export type KybTasks = Pick<TaskKinds, "finishKybReview">;

function cancelReview(env: FlowEnv, company: CompanyRecord): void {
  env.cancel(company.account, (task) => task.kind === "finishKybReview" && task.companyId === company.id);
}

/** Sets the KYB result; company.kyb_status_changed announces it when it changes a submission's status. */
function setResult(env: FlowEnv, company: CompanyRecord, status: string): void {
  const before = company.kybStatus;
  if (before === status) return;
  env.store.put("companies", { ...company, kybStatus: status });
  if (before !== undefined) env.fire(company.account, "company.kyb_status_changed", { companyId: company.id, status });
}

export const kyb = defineFlow<KybTasks>()({
  name: "KYB",
  partner: {
    submitKybProfile(call) {
      const { env } = call;
      const company = actingCompany(call);
      env.store.put("companies", { ...company, kybStatus: "SUBMITTED" });
      // A new submission restarts the review.
      cancelReview(env, company);
      env.schedule({
        kind: "finishKybReview",
        apiKey: apiKeyOf(call),
        dueAt: env.reading() + env.settings.kybReviewSeconds * 1000,
        companyId: company.id,
      });
      return { status: 201, body: { status: "SUBMITTED" } };
    },
  },
  control: {
    setCompanyKybResult(call) {
      const company = pathCompany(call);
      const { status } = call.body;
      cancelReview(call.env, company);
      setResult(call.env, company, status);
      return { status: 200, body: { companyId: company.id, status } };
    },
  },
  tasks: {
    finishKybReview(env, task) {
      const company = env.store.get("companies", task.apiKey, task.companyId);
      if (company) setResult(env, company, "APPROVED");
    },
  },
});
