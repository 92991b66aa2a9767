/**
 * Business verification (KYB): a submitted profile is `SUBMITTED`, and its review ends `APPROVED` after the
 * review time on the clock, unless a control call sets a result first. Either way company.kyb_status_changed
 * announces the result.
 */
import type { SandboxEngine } from "../engine.ts";
import { actingCompany, apiKeyOf, defineFlow, pathCompany } from "../flow.ts";

/** The timed work of KYB: the data each kind of task carries. */
export interface KybTasks {
  /** The review time has passed: the submission is approved. */
  finishKybReview: { companyId: string };
}

function cancelReview(engine: SandboxEngine, companyId: string): void {
  engine.cancel((task) => task.kind === "finishKybReview" && task.companyId === companyId);
}

export const kyb = defineFlow<KybTasks>()({
  name: "KYB",
  partner: {
    submitKybProfile(call) {
      const { engine } = call;
      const company = actingCompany(call);
      company.kybStatus = "SUBMITTED";
      engine.changed(apiKeyOf(call), "companies", company, "kybStatus");
      const companyId = company.company.id;
      // A new submission restarts the review.
      cancelReview(engine, companyId);
      engine.schedule({
        kind: "finishKybReview",
        apiKey: apiKeyOf(call),
        dueAt: engine.clock.now() + engine.settings.kybReviewSeconds * 1000,
        companyId,
      });
      return { status: 201, body: { status: "SUBMITTED" } };
    },
  },
  control: {
    setCompanyKybResult(call) {
      const company = pathCompany(call);
      const companyId = company.company.id;
      const { status } = call.body;
      cancelReview(call.engine, companyId);
      company.kybStatus = status;
      call.engine.changed(apiKeyOf(call), "companies", company, "kybStatus");
      call.engine.fire(apiKeyOf(call), "company.kyb_status_changed", { companyId, status });
      return { status: 200, body: { companyId, status } };
    },
  },
  tasks: {
    finishKybReview(engine, task) {
      const company = engine.company(engine.account(task.apiKey), task.companyId);
      if (!company) return;
      company.kybStatus = "APPROVED";
      engine.changed(task.apiKey, "companies", company, "kybStatus");
      engine.fire(task.apiKey, "company.kyb_status_changed", { companyId: company.company.id, status: "APPROVED" });
    },
  },
});
