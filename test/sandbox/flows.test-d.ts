/**
 * The sandbox's flows are typed from the generated contract types: a handler of an operation the contract lacks, a
 * handler answering a shape or status its operation does not declare, a body or parameter the operation
 * does not have, an event payload that breaks its webhook schema, or a timed task without its runner fails
 * to compile. Each `@ts-expect-error` below must meet an error, or this file itself fails to compile.
 */
import { describe, expectTypeOf, test } from "vitest";
import {
  type ControlHandlers,
  defineFlow,
  type FlowEnv,
  type PartnerHandlers,
  type PartnerOperationId,
  type TaskRunners,
} from "../../devkit/src/sandbox/flows/flow.ts";
import {
  CONTROL_HANDLERS,
  PARTNER_HANDLERS,
  TASK_RUNNERS,
  type Task,
  type TaskKinds,
} from "../../devkit/src/sandbox/flows/index.ts";
import type { components } from "../../generated/schema.js";

declare const engine: FlowEnv;

describe("the handler maps", () => {
  test("hold a typed handler per operation (one without a handler is answered from its examples), no webhook receive operation", () => {
    expectTypeOf(PARTNER_HANDLERS).toEqualTypeOf<Partial<PartnerHandlers>>();
    expectTypeOf(CONTROL_HANDLERS).toEqualTypeOf<Partial<ControlHandlers>>();
    expectTypeOf<"createCard">().toExtend<PartnerOperationId>();
    expectTypeOf<"receiveCompanyKycStatusChanged">().not.toExtend<PartnerOperationId>();
  });

  test("a handler of an operation the contract does not have (a renamed one) fails to compile", () => {
    const partner: Partial<PartnerHandlers> = {
      ...PARTNER_HANDLERS,
      // @ts-expect-error the contract has no getCardHolderById
      getCardHolderById: () => ({ status: 200, body: {} }),
    };
    const control: Partial<ControlHandlers> = {
      ...CONTROL_HANDLERS,
      // @ts-expect-error the control contract has no advanceTheClock
      advanceTheClock: () => ({ status: 200, body: {} }),
    };
    void [partner, control];
  });

  test("a handler answering a wrong shape or an undeclared status fails to compile", () => {
    const wrongShape: Partial<PartnerHandlers> = {
      ...PARTNER_HANDLERS,
      // @ts-expect-error cardBins is a list of BINs, not a string
      listCardBins: () => ({ status: 200, body: { cardBins: "45671234" } }),
    };
    const undeclaredStatus: Partial<PartnerHandlers> = {
      ...PARTNER_HANDLERS,
      // @ts-expect-error createCard declares 201, not 200
      createCard: () => ({ status: 200, body: { card: { id: "x", status: "Creating" } } }),
    };
    const missingBody: Partial<ControlHandlers> = {
      ...CONTROL_HANDLERS,
      // @ts-expect-error getClock answers a body (the clock)
      getClock: () => ({ status: 200 }),
    };
    const jsonForHtml: Partial<ControlHandlers> = {
      ...CONTROL_HANDLERS,
      // @ts-expect-error getKycPage answers an HTML page
      getKycPage: () => ({ status: 200, body: {} }),
    };
    void [wrongShape, undeclaredStatus, missingBody, jsonForHtml];
  });

  test("a handler reads only the body fields and parameters its operation has", () => {
    const handlers: Partial<PartnerHandlers> = {
      createCard(call) {
        expectTypeOf(call.body).toEqualTypeOf<components["schemas"]["CreateCardRequest"]>();
        // @ts-expect-error the body has no field cardholderId (it is cardHolderId)
        void call.body.cardholderId;
        // @ts-expect-error createCard has no path parameter cardId
        void call.params.cardId;
        expectTypeOf(call.params["X-Company-Id"]).toEqualTypeOf<string>();
        return { status: 201, body: { card: { id: "x", status: "Creating" } } };
      },
      listCards(call) {
        expectTypeOf(call.params.page).toEqualTypeOf<number | undefined>();
        // @ts-expect-error listCards takes no body
        void call.body.name;
        return { status: 200, body: { cards: [] } };
      },
    };
    void handlers;
  });
});

describe("defineFlow", () => {
  test("refuses a handler under the wrong API, and a key a flow does not have", () => {
    defineFlow()({
      name: "wrong API",
      // @ts-expect-error advanceClock is a control operation, not a partner one
      partner: { advanceClock: () => ({ status: 200, body: { now: "" } }) },
      control: {},
      tasks: {},
    });
    defineFlow()({
      name: "extra key",
      partner: {},
      control: {},
      tasks: {},
      // @ts-expect-error a flow has no "handlers" key
      handlers: {},
    });
  });

  test("a flow's task runners must match the kinds it names", () => {
    defineFlow<{ remind: { cardId: string } }>()({
      name: "missing runner",
      partner: {},
      control: {},
      // @ts-expect-error the flow names a task kind remind without a runner for it
      tasks: {},
    });
    defineFlow<{ remind: { cardId: string } }>()({
      name: "runner reads its task",
      partner: {},
      control: {},
      tasks: {
        remind(_engine, task) {
          expectTypeOf(task.cardId).toEqualTypeOf<string>();
          // @ts-expect-error a remind task carries no companyId
          void task.companyId;
        },
      },
    });
  });
});

describe("fire and schedule", () => {
  test("fire takes only the contract's event types, each with its payload", () => {
    engine.fire("k", "company.kyc_status_changed", { companyId: "x", kycStatus: "approved" });
    // @ts-expect-error "done" is not one of the nine verification statuses
    engine.fire("k", "company.kyc_status_changed", { companyId: "x", kycStatus: "done" });
    // @ts-expect-error the API has no event card.created
    engine.fire("k", "card.created", {});
    engine.fire("k", "payment_route.transaction.created", {
      // @ts-expect-error data tells its kind by routeType, onramp or offramp
      data: { routeType: "sideways" },
    });
  });

  test("every task kind has a runner, and a task carries its kind's data", () => {
    const { activateCard: _, ...withoutActivateCard } = TASK_RUNNERS;
    // @ts-expect-error activateCard has no runner
    const runners: TaskRunners<TaskKinds> = withoutActivateCard;
    void runners;
    expectTypeOf<Task["kind"]>().toEqualTypeOf<"activateCard" | "finishKybReview" | "deliverEvent">();
    engine.schedule({ kind: "activateCard", apiKey: "k", dueAt: 0, companyId: "c", cardId: "d" });
    // @ts-expect-error activateCard needs the cardId
    engine.schedule({ kind: "activateCard", apiKey: "k", dueAt: 0, companyId: "c" });
    // @ts-expect-error no flow registers a task kind "expire"
    engine.schedule({ kind: "expire", apiKey: "k", dueAt: 0 });
  });
});

describe("records", () => {
  test("are changed only by a put: a field set in place fails to compile", () => {
    const card = engine.store.get("cards", "k", "c");
    if (card) {
      // @ts-expect-error a record's fields are read-only: put a new record instead
      card.frozen = true;
      engine.store.put("cards", { ...card, frozen: true });
      // @ts-expect-error a card goes in the cards table, not the companies table
      engine.store.put("companies", card);
    }
  });
});

describe("the control contract's answers", () => {
  test("carry the ids the sandbox always sends as required, so a partner's test needs no `!`", () => {
    type Control = import("../../devkit/generated/sandbox.js").components["schemas"];
    expectTypeOf<Control["ListCardHoldersResponse"]["cardHolders"][number]["id"]>().toEqualTypeOf<string>();
    expectTypeOf<Control["CardHolderResponse"]["cardHolder"]["id"]>().toEqualTypeOf<string>();
    expectTypeOf<Control["CompanyResponse"]["company"]["id"]>().toEqualTypeOf<string>();
    expectTypeOf<Control["PaymentRouteResponse"]["paymentRoute"]["id"]>().toEqualTypeOf<string>();
    expectTypeOf<Control["TransactionResponse"]["transaction"]["id"]>().toEqualTypeOf<string>();
    expectTypeOf<Control["AccountCompany"]["cards"][number]["id"]>().toEqualTypeOf<string>();
    // The partner contract's own types leave them optional: the API description marks no field required.
    expectTypeOf<components["schemas"]["CardHolder"]["id"]>().toEqualTypeOf<string | undefined>();
  });
});
