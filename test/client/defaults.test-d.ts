/**
 * A field with a default and not in `required` is optional to send (docs/design/generated-types.md, "What the generated types
 * promise"): the contract's own `cardOnlyCompany` body and the control API's `{ type: "onramp" }` compile as calls.
 */
import { describe, expectTypeOf, test } from "vitest";
import type { components as control } from "../../devkit/generated/sandbox.js";
import type { SandboxControl } from "../../devkit/src/sandbox/index.ts";
import type { components } from "../../generated/schema.js";
import { createPartnerClient } from "../../src/index.ts";

const client = createPartnerClient({
  apiKey: "k",
  baseUrl: "http://127.0.0.1:1",
  fetch: async () => new Response("{}"),
});
declare const sandboxControl: SandboxControl;
const companyId = "01JD8X2K7P3M9Q4R6S8T0V2W4X";

describe("a default makes a field optional to send, never required", () => {
  test("onboardCompany without products (cardOnlyCompany)", () => {
    const cardOnlyCompany = {
      name: "Globex Trading Ltd",
      countryCode: "GB",
      directorName: "Oliver Smith",
      directorEmail: "oliver.smith@globex.example",
      directorPhone: "+442079460000",
      addressLine1: "1 Canada Square",
      city: "London",
      state: "Greater London",
      postalCode: "E14 5AB",
    };
    const onboard = () => client.POST("/v1/companies", { body: cardOnlyCompany });
    expectTypeOf(onboard).returns.resolves.toHaveProperty("data");
    expectTypeOf<components["schemas"]["OnboardCompanyRequest"]["products"]>().toEqualTypeOf<
      components["schemas"]["Product"][] | undefined
    >();
    // A field in `required` stays required.
    const { name: _, ...withoutName } = cardOnlyCompany;
    // @ts-expect-error name is required
    const missingName: components["schemas"]["OnboardCompanyRequest"] = withoutName;
    expectTypeOf(missingName).not.toBeAny();
  });

  test('the control API opens a route from { type: "onramp" } (status and feePercent have defaults)', () => {
    const open = () =>
      sandboxControl.POST("/_sandbox/companies/{companyId}/payment-routes", {
        params: { path: { companyId } },
        body: { type: "onramp" },
      });
    expectTypeOf(open).returns.resolves.toHaveProperty("data");
    expectTypeOf<control["schemas"]["CreatePaymentRouteRequest"]["feePercent"]>().toEqualTypeOf<number | undefined>();
    // @ts-expect-error type has no default: it is required
    const noType: control["schemas"]["CreatePaymentRouteRequest"] = { status: "active" };
    expectTypeOf(noType).not.toBeAny();
  });
});
