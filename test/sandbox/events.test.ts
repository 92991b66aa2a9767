/** Every webhook event the sandbox fires is exactly what the partner contract's `webhooks` describe for its type. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { createValidator, loadDocument, pointerSegment } from "../contract/support/contract.ts";
import { clientFor, ONBOARD_BODY, seededCompany } from "./support.ts";

const document = loadDocument();
const validator = createValidator(document);

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 8, kybReviewSeconds: 5 });
});
afterAll(() => sandbox.stop());

it("all six event types, fired by the partner API, the control API, the hosted page and the clock, match their webhook schemas", async () => {
  const client = clientFor(sandbox.url, "every-event");
  const { companyId } = await seededCompany(client);
  const swap = (await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] })).body.company;
  await fetch(swap.swap.kycUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "action=submit",
  });
  await client.post(`/_sandbox/companies/${swap.id}/onboarding-status`, { status: "Active" });
  for (const type of ["onramp", "offramp"]) {
    // A route for a company not cleared (the seeded one has no verification), forced.
    const route = await client.post(`/_sandbox/companies/${companyId}/payment-routes`, { type, force: true });
    await client.post(`/_sandbox/payment-routes/${route.body.paymentRoute.id}/deposits`, {
      amount: 99.5,
      senderName: "Payer",
      force: true,
    });
  }
  await client.post(
    "/v1/kyb-profiles",
    {
      companyName: "X",
      industry: "541511",
      registrationCountry: "US",
      registrationNumber: "1",
      uboFirstName: "A",
      uboLastName: "B",
      uboGender: "MALE",
      uboCountryCode: "US",
      uboIdType: "PASSPORT",
      uboIdNumber: "1",
      uboDob: "1980-02-29",
    },
    { companyId },
  );
  await client.post("/_sandbox/clock/advance", { seconds: 5 });

  const events = (await client.get("/_sandbox/events")).body.events as { type: string; deliveries: unknown }[];
  expect(new Set(events.map((event) => event.type))).toEqual(new Set(Object.keys(document.webhooks)));
  for (const { deliveries: _, ...envelope } of events) {
    const pointer = `#/webhooks/${pointerSegment(envelope.type)}/post/requestBody/content/application~1json/schema`;
    expect(validator.errors(pointer, envelope), JSON.stringify(envelope)).toEqual([]);
  }
});
