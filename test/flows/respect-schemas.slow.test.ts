/**
 * Respect's schema check and Ajv 2020 agree on the contract's schemas, and disagreed on the forms they replace.
 * A small server answers a set of transactions and ledger pages; an OpenAPI document (the contract's components,
 * with paths answering them under the contract's Transaction and LedgerEntry, and under the earlier forms:
 * `dependentSchemas: {card: {properties: {paymentMethod: {type: string}}}}`, and a `discriminator` on the ledger
 * entry's anyOf) lets the real `redocly respect` check each body. Each body is validated with Ajv 2020 too.
 * docs/design/flows.md explains the two Respect behaviours behind the earlier failures.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createValidator, loadDocument } from "../contract/support/contract.ts";
import { respectSteps, runRespect } from "../helpers/respect.ts";

const ULID = "01JD8X4M6Q2V7R9T3W5Y0Z1A2B";
const transaction = {
  id: ULID,
  type: "Credit",
  currency: "USD",
  amount: 100,
  counterpartyName: "First Payer LLC",
  counterpartyCode: "",
  counterpartyBankCode: "",
  description: "Deposit on payment route",
  status: "PAID",
  createdAt: "2026-11-22T13:00:00.000000Z",
};
const ledgerTransaction = {
  id: ULID,
  direction: "Debit",
  amount: "-18.99",
  currency: "USD",
  description: "Software subscription",
  counterpartyName: "Sandbox Merchant",
  createdAt: "2026-01-01T00:03:00.000Z",
};
const pagination = { currentPage: 1, totalPages: 1, perPage: 20 };

/** Bodies by kind and name, and whether the contract takes each (what both validators must say). */
const BODIES = {
  transaction: {
    deposit: { body: { transaction: { ...transaction, paymentMethod: null } }, valid: true },
    cardPayment: {
      body: {
        transaction: { ...transaction, paymentMethod: "card", card: { last4: "4242", type: "visa", country: null } },
      },
      valid: true,
    },
    cardWithoutMethod: {
      body: { transaction: { ...transaction, card: { last4: null, type: null, country: null } } },
      valid: true,
    },
    cardWithNullMethod: {
      body: {
        transaction: { ...transaction, paymentMethod: null, card: { last4: "4242", type: "visa", country: null } },
      },
      valid: false,
    },
  },
  ledger: {
    everyKind: {
      body: {
        transactions: [
          {
            type: "Card",
            transaction: ledgerTransaction,
            data: { status: "Closed", merchant: { name: "M", code: "5999", city: "SF", country: "US" }, isFx: false },
          },
          {
            type: "Account",
            transaction: { ...ledgerTransaction, direction: "Credit", amount: "5000.00" },
            data: { status: "Completed" },
          },
          {
            type: "PaymentAcceptance",
            transaction: ledgerTransaction,
            data: { status: "Paid", paymentMethod: "card" },
          },
        ],
        pagination,
      },
      valid: true,
    },
    untyped: {
      body: { transactions: [{ transaction: ledgerTransaction, data: { status: "Closed" } }], pagination },
      valid: true,
    },
    badCardEntry: {
      body: { transactions: [{ type: "Card", transaction: ledgerTransaction, data: { isFx: "no" } }], pagination },
      valid: false,
    },
  },
} as const;

type Kind = keyof typeof BODIES;
const FORMS = ["contract", "earlier"] as const;

/** The document Respect checks against: the contract's components, the earlier forms beside them, one path each. */
function checkedDocument(): Record<string, any> {
  const contract = loadDocument();
  const components = structuredClone(contract.components);
  const schemas = components.schemas;
  schemas.EarlierTransaction = {
    ...schemas.Transaction,
    dependentSchemas: { card: { properties: { paymentMethod: { type: "string" } } } },
  };
  schemas.EarlierLedgerEntry = {
    ...schemas.LedgerEntry,
    discriminator: {
      propertyName: "type",
      mapping: {
        Card: "#/components/schemas/CardLedgerEntry",
        PaymentAcceptance: "#/components/schemas/PaymentAcceptanceLedgerEntry",
        Account: "#/components/schemas/AccountLedgerEntry",
      },
    },
  };
  const bodySchema = (kind: Kind, form: (typeof FORMS)[number]) =>
    kind === "transaction"
      ? {
          type: "object",
          properties: {
            transaction: { $ref: `#/components/schemas/${form === "contract" ? "Transaction" : "EarlierTransaction"}` },
          },
        }
      : {
          type: "object",
          properties: {
            transactions: {
              type: "array",
              items: { $ref: `#/components/schemas/${form === "contract" ? "LedgerEntry" : "EarlierLedgerEntry"}` },
            },
            pagination: { $ref: "#/components/schemas/Pagination" },
          },
        };
  const paths: Record<string, unknown> = {};
  for (const form of FORMS)
    for (const kind of Object.keys(BODIES) as Kind[])
      paths[`/${form}/${kind}/{body}`] = {
        get: {
          operationId: `${form}${kind[0]!.toUpperCase()}${kind.slice(1)}`,
          parameters: [{ name: "body", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": { description: "The body.", content: { "application/json": { schema: bodySchema(kind, form) } } },
          },
        },
      };
  return { openapi: "3.1.0", info: { title: "Bodies", version: "1.0.0" }, paths, components };
}

let server: Server;
let work: string;
let baseUrl: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    const [, , kind, name] = (request.url ?? "").split("/");
    const found = (BODIES as Record<string, Record<string, { body: unknown }>>)[kind ?? ""]?.[name ?? ""];
    response.writeHead(found ? 200 : 404, { "content-type": "application/json" });
    response.end(JSON.stringify(found?.body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  work = await mkdtemp(path.join(os.tmpdir(), "respect-schemas-"));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(work, { recursive: true, force: true });
});

describe("Respect's schema check and Ajv 2020", () => {
  it("agree on every body under the contract's schemas; under the earlier forms Respect refused valid bodies", async () => {
    const document = checkedDocument();
    const cases = FORMS.flatMap((form) =>
      (Object.keys(BODIES) as Kind[]).flatMap((kind) =>
        Object.entries(BODIES[kind]).map(([name, { valid }]) => ({
          form,
          kind,
          name,
          valid,
          id: `${form}-${kind}-${name}`,
        })),
      ),
    );
    await writeFile(path.join(work, "bodies.openapi.json"), JSON.stringify(document));
    await writeFile(
      path.join(work, "bodies.arazzo.json"),
      JSON.stringify({
        arazzo: "1.0.1",
        info: { title: "Bodies", version: "1.0.0" },
        sourceDescriptions: [{ name: "bodies", url: "bodies.openapi.json", type: "openapi" }],
        // One workflow a body, so that one refused does not stop the others.
        workflows: cases.map(({ form, kind, name, id }) => ({
          workflowId: id,
          steps: [
            {
              stepId: "read",
              operationId: `${form}${kind[0]!.toUpperCase()}${kind.slice(1)}`,
              parameters: [{ name: "body", in: "path", value: name }],
              successCriteria: [{ condition: "$statusCode == 200" }],
            },
          ],
        })),
      }),
    );
    const run = await runRespect(path.join(work, "bodies.arazzo.json"), { inputs: {}, servers: { bodies: baseUrl } });
    const validator = createValidator(document);
    const verdicts = Object.values(run.report.files)[0]!.executedWorkflows.map((workflow) => {
      const [step] = respectSteps(workflow.executedSteps ?? []);
      const schemaCheck = step!.checks!.find((check) => check.name === "schema check");
      const found = cases.find((entry) => entry.id === workflow.workflowId)!;
      const pointer = `#/paths/${`/${found.form}/${found.kind}/{body}`.replaceAll("/", "~1")}/get/responses/200/content/application~1json/schema`;
      return {
        id: found.id,
        expected: found.valid,
        ajv:
          validator.errors(pointer, (BODIES[found.kind] as Record<string, { body: unknown }>)[found.name]!.body)
            .length === 0,
        respect: schemaCheck?.passed ?? false,
        respectSaid: schemaCheck?.message ?? "",
      };
    });
    expect(verdicts).toHaveLength(cases.length);
    // Ajv 2020 takes the contract's verdict on every body, in both forms (the forms say the same).
    for (const verdict of verdicts) expect(verdict.ajv, verdict.id).toBe(verdict.expected);
    // Respect agrees with Ajv 2020 on every body under the contract's schemas.
    for (const verdict of verdicts.filter((v) => v.id.startsWith("contract-")))
      expect(verdict.respect, `${verdict.id}: ${verdict.respectSaid}`).toBe(verdict.expected);
    // Under the earlier forms, Respect refused bodies both validators should take: every transaction without a card
    // (unevaluated properties), and every ledger page (its Ajv cannot compile the discriminator).
    const earlier = Object.fromEntries(verdicts.filter((v) => v.id.startsWith("earlier-")).map((v) => [v.id, v]));
    expect(earlier["earlier-transaction-deposit"]).toMatchObject({ expected: true, respect: false });
    expect(earlier["earlier-transaction-deposit"]!.respectSaid).toMatch(/UNEVALUATEDPROPERTIES|unevaluated/i);
    expect(earlier["earlier-ledger-everyKind"]).toMatchObject({ expected: true, respect: false });
    expect(earlier["earlier-ledger-everyKind"]!.respectSaid).toMatch(/discriminator: "type" must be required/);
  });
});
