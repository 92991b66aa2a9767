/** The other account's event: so a delivery signed with the wrong account's secret reaches a side that can tell. */
import type { Operation } from "../../contract/router.ts";
import type { RequestParts } from "../cases.ts";
import type { Run } from "./run.ts";

/** The event the other account's receiver is sent, when onboarding with Swap promises one (the sandbox: kyc_link). */
const OTHER_ACCOUNT_EVENT = "company.kyc_link.issued";

/**
 * An event for the other account too: its receiver was registered with a secret of its own, and a server that
 * signs one account's deliveries with the other's secret fails webhook_signature only on a delivery that
 * reaches the wrongly signed side. The main account's accepted onboardCompany is sent again as the other
 * account (with Swap, whose kycUrl is announced by an event), and that event is awaited at its receiver.
 */
export async function otherAccountEvent(run: Run, operations: Operation[]): Promise<void> {
  if (!run.receiver || run.options.otherApiKey === undefined || !run.webhookSecrets.has("other")) return;
  const onboard = operations.find((operation) => operation.operationId === "onboardCompany");
  const accepted = run.accepted.find((item) => item.probe.operation === onboard);
  const body = accepted?.parts.body as { products?: unknown } | undefined;
  if (!onboard || !accepted || body === undefined || typeof body !== "object") {
    run.skip(
      "webhooks (the other account)",
      "no onboardCompany was accepted for the main account to send again as the other: its receiver gets no event of verify's",
    );
    return;
  }
  const products = Array.isArray(body.products) ? body.products : [];
  const parts: RequestParts = {
    ...accepted.parts,
    body: { ...body, products: products.includes("Swap") ? products : [...products, "Swap"] },
    label: "onboardCompany as the other account, so its receiver gets an event",
  };
  const exchange = await run.sendParts(onboard, parts, "positive", "other");
  const companyId = (exchange?.answer.json as { company?: { id?: unknown } } | undefined)?.company?.id;
  if (!exchange || exchange.answer.status < 200 || exchange.answer.status > 299 || typeof companyId !== "string") {
    run.skip(
      "webhooks (the other account)",
      "onboardCompany as the other account was not accepted: its receiver gets no event of verify's",
    );
    return;
  }
  if (webhookTypes(run).has(OTHER_ACCOUNT_EVENT))
    run.expected.push({
      type: OTHER_ACCOUNT_EVENT,
      account: "other",
      companyId,
      after: "onboardCompany as the other account",
    });
}

/** The event types the contract describes (its `webhooks`). */
function webhookTypes(run: Run): Set<string> {
  return new Set(Object.keys((run.document as { webhooks?: Record<string, unknown> }).webhooks ?? {}));
}
