/**
 * One fixture pair per kind of change of issue 7 section 2: the bundled contract (base) and a
 * mutation of it (head). Each proves the class, the location and, for compatible or
 * documentation-only edits, that nothing is flagged as breaking.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Change } from "../../scripts/lib/diff/changes.ts";
import { compareDocuments } from "../../scripts/lib/diff/operations.ts";
import type { Document, JsonObject } from "../../scripts/lib/diff/resolve.ts";
import type { ChangeClass, ChangeKind } from "../../scripts/lib/diff/rules.ts";
import { bundleJsonPath } from "../../scripts/lib/paths.ts";

const contract = JSON.parse(readFileSync(bundleJsonPath, "utf8")) as Document;

// Loose accessors for mutating the bundled document in tests.
type Any = any;
const schemas = (d: Document): Any => (d.components as Any).schemas;

function changesAfter(mutate: (d: Any) => void): Change[] {
  const head = structuredClone(contract);
  mutate(head);
  return compareDocuments(contract, head);
}

interface Case {
  name: string;
  mutate: (d: Any) => void;
  kind: ChangeKind;
  cls: ChangeClass;
  /** The change's location starts with this. */
  at: string;
  /** When set, the change must list this operation or webhook among its users. */
  usedBy?: string;
}

const breaking: Case[] = [
  {
    name: "a removed path",
    mutate: (d) => delete d.paths["/v1/card-bins"],
    kind: "path-removed",
    cls: "breaking",
    at: "/v1/card-bins",
  },
  {
    name: "a removed operation",
    mutate: (d) => delete d.paths["/v1/cards"].post,
    kind: "operation-removed",
    cls: "breaking",
    at: "POST /v1/cards",
  },
  {
    name: "a removed webhook",
    mutate: (d) => delete d.webhooks["company.kyb_status_changed"],
    kind: "webhook-removed",
    cls: "breaking",
    at: "webhook company.kyb_status_changed",
  },
  {
    name: "a removed response field (in a shared component, reported once with its users)",
    mutate: (d) => delete schemas(d).Card.properties.last4,
    kind: "field-removed",
    cls: "breaking",
    at: "#/components/schemas/Card .last4",
    usedBy: "GET /v1/cards",
  },
  {
    name: "a renamed response field",
    mutate: (d) => {
      const p = schemas(d).Card.properties;
      p.lastFour = p.last4;
      delete p.last4;
    },
    kind: "field-removed",
    cls: "breaking",
    at: "#/components/schemas/Card .last4",
  },
  {
    name: "a changed type (string → integer, keeping null, in a 3.1 type array)",
    mutate: (d) => {
      schemas(d).Transaction.properties.paymentMethod.type = ["integer", "null"];
    },
    kind: "type-changed",
    cls: "breaking",
    at: "#/components/schemas/Transaction .paymentMethod",
    usedBy: "GET /transactions/{transactionId}",
  },
  {
    name: "null newly allowed in a response field (type array widened)",
    mutate: (d) => {
      schemas(d).Card.properties.brand.type = ["string", "null"];
    },
    kind: "type-widened",
    cls: "breaking",
    at: "#/components/schemas/Card .brand",
  },
  {
    name: "a request field added as required",
    mutate: (d) => {
      const s = schemas(d).CreateCardRequest;
      s.properties.costCenter = { type: "string" };
      s.required.push("costCenter");
    },
    kind: "field-added-required",
    cls: "breaking",
    at: "#/components/schemas/CreateCardRequest .costCenter",
    usedBy: "POST /v1/cards",
  },
  {
    name: "a request field that became required",
    mutate: (d) => schemas(d).CreateCardRequest.required.push("description"),
    kind: "field-became-required",
    cls: "breaking",
    at: "#/components/schemas/CreateCardRequest .description",
  },
  {
    name: "a parameter added as required",
    mutate: (d) => {
      d.paths["/v1/card-bins"].get.parameters.push({
        name: "region",
        in: "query",
        required: true,
        schema: { type: "string" },
      });
    },
    kind: "parameter-added-required",
    cls: "breaking",
    at: "GET /v1/card-bins parameter query region",
  },
  {
    name: "a header added as required",
    mutate: (d) => {
      const operation = d.paths["/transactions/{transactionId}"].get;
      operation.parameters ??= [];
      operation.parameters.push({
        name: "X-Trace",
        in: "header",
        required: true,
        schema: { type: "string" },
      });
    },
    kind: "parameter-added-required",
    cls: "breaking",
    at: "GET /transactions/{transactionId} parameter header x-trace",
  },
  {
    name: "a parameter that became required",
    mutate: (d) => {
      d.components.parameters.Keyword.required = true;
    },
    kind: "parameter-became-required",
    cls: "breaking",
    at: "GET /v1/cards parameter query keyword",
  },
  {
    name: "a removed request enum value",
    mutate: (d) => {
      schemas(d).Chain.enum = schemas(d).Chain.enum.slice(1);
    },
    kind: "enum-value-removed",
    cls: "breaking",
    at: "#/components/schemas/Chain",
    usedBy: "POST /v1/wallets/{walletId}/addresses",
  },
  {
    name: "a narrowed request pattern (a changed pattern on the shared ULID)",
    mutate: (d) => {
      schemas(d).Ulid.pattern = "^[0-9A-HJKMNP-TV-Z]{20}$";
    },
    kind: "constraint-changed",
    cls: "breaking",
    at: "#/components/schemas/Ulid",
    usedBy: "POST /v1/cards",
  },
  {
    name: "a narrowed request length",
    mutate: (d) => {
      schemas(d).CreateCardRequest.properties.name.maxLength = 20;
    },
    kind: "constraint-narrowed",
    cls: "breaking",
    at: "#/components/schemas/CreateCardRequest .name",
  },
  {
    name: "a narrowed request range",
    mutate: (d) => {
      d.components.parameters.Limit.schema.minimum = 10;
    },
    kind: "constraint-narrowed",
    cls: "breaking",
    at: "#/components/parameters/Limit/schema",
  },
  {
    name: "a removed success status",
    mutate: (d) => {
      const r = d.paths["/v1/cards"].post.responses;
      r["200"] = r["201"];
      delete r["201"];
    },
    kind: "success-status-removed",
    cls: "breaking",
    at: "POST /v1/cards response 201",
  },
  {
    name: "a changed security requirement",
    mutate: (d) => {
      d.paths["/v1/card-bins"].get.security = [];
    },
    kind: "security-changed",
    cls: "breaking",
    at: "GET /v1/card-bins",
  },
  {
    name: "a removed webhook payload field (reversed direction)",
    mutate: (d) => delete schemas(d).PaymentRouteCreatedPayload.properties.companyId,
    kind: "field-removed",
    cls: "breaking",
    at: "#/components/schemas/PaymentRouteCreatedPayload .companyId",
    usedBy: "webhook payment_route.created POST",
  },
  {
    name: "a new enum value in a webhook payload (receivers may not handle it)",
    mutate: (d) => schemas(d).KycStatus.enum.push("escalated"),
    kind: "enum-value-added",
    cls: "breaking",
    at: "#/components/schemas/KycStatus",
    usedBy: "webhook company.kyc_status_changed POST",
  },
  {
    name: "a changed const in a webhook payload",
    mutate: (d) => {
      schemas(d).OnrampTransactionData.properties.routeType.const = "on_ramp";
    },
    kind: "const-changed",
    cls: "breaking",
    at: "#/components/schemas/OnrampTransactionData .routeType",
    usedBy: "webhook payment_route.transaction.created POST",
  },
  {
    name: "a changed if/then condition",
    mutate: (d) => {
      schemas(d).SpendSettings.allOf[0].if.properties.isUnlimitedLimitPerTransaction.const = true;
    },
    kind: "conditional-changed",
    cls: "breaking",
    at: "#/components/schemas/SpendSettings <allOf 0>.if",
  },
];

const compatible: Case[] = [
  {
    name: "a new optional request field",
    mutate: (d) => {
      schemas(d).CreateCardRequest.properties.costCenter = { type: "string" };
    },
    kind: "field-added-optional",
    cls: "compatible",
    at: "#/components/schemas/CreateCardRequest .costCenter",
    usedBy: "POST /v1/cards",
  },
  {
    name: "a new response field",
    mutate: (d) => {
      schemas(d).Card.properties.expiresAt = { type: "string", format: "date-time" };
    },
    kind: "field-added-optional",
    cls: "compatible",
    at: "#/components/schemas/Card .expiresAt",
  },
  {
    name: "a new operation",
    mutate: (d) => {
      d.paths["/v1/card-bins"].post = {
        operationId: "createCardBin",
        responses: { "201": { description: "Created" } },
      };
    },
    kind: "operation-added",
    cls: "compatible",
    at: "POST /v1/card-bins",
  },
  {
    name: "a new webhook",
    mutate: (d) => {
      d.webhooks["card.created"] = {
        post: { operationId: "receiveCardCreated", responses: { "200": { description: "OK" } } },
      };
    },
    kind: "webhook-added",
    cls: "compatible",
    at: "webhook card.created",
  },
  {
    name: "null dropped from a response type array (type narrowed for readers)",
    mutate: (d) => {
      schemas(d).TransactionCardDetails.properties.last4.type = "string";
    },
    kind: "type-narrowed",
    cls: "compatible",
    at: "#/components/schemas/TransactionCardDetails .last4",
  },
  {
    name: "a new request enum value",
    mutate: (d) => schemas(d).Chain.enum.push("newchain"),
    kind: "enum-value-added",
    cls: "compatible",
    at: "#/components/schemas/Chain",
  },
];

const documentation: Case[] = [
  {
    name: "a description",
    mutate: (d) => {
      schemas(d).Card.description = "A card.";
    },
    kind: "documentation-changed",
    cls: "documentation",
    at: "#/components/schemas/Card",
  },
  {
    name: "a summary",
    mutate: (d) => {
      d.paths["/v1/cards"].get.summary = "Cards";
    },
    kind: "documentation-changed",
    cls: "documentation",
    at: "GET /v1/cards",
  },
  {
    name: "an example",
    mutate: (d) => {
      const m = d.paths["/v1/cards"].post.requestBody.content["application/json"];
      m.examples.travelCard.value.name = "Other";
    },
    kind: "documentation-changed",
    cls: "documentation",
    at: "POST /v1/cards request body application/json",
  },
];

function expectCase(c: Case): void {
  const changes = changesAfter(c.mutate);
  const match = changes.find((change) => change.kind === c.kind && change.location.startsWith(c.at));
  expect(
    match,
    `expected ${c.kind} at ${c.at}; got ${JSON.stringify(changes.map((x) => `${x.class} ${x.id}`))}`,
  ).toBeDefined();
  expect(match!.class).toBe(c.cls);
  if (c.usedBy) expect(match!.usedBy).toContain(c.usedBy);
  if (c.cls !== "breaking") {
    expect(changes.filter((change) => change.class === "breaking").map((x) => x.id)).toEqual([]);
  }
  if (c.cls === "documentation") expect(changes.every((change) => change.class === "documentation")).toBe(true);
}

describe("classification on the bundled contract", () => {
  it("finds no change between the contract and itself", () => {
    expect(compareDocuments(contract, structuredClone(contract))).toEqual([]);
  });
  describe("breaking", () => {
    for (const c of breaking) it(c.name, () => expectCase(c));
  });
  describe("compatible", () => {
    for (const c of compatible) it(c.name, () => expectCase(c));
  });
  describe("documentation-only", () => {
    for (const c of documentation) it(c.name, () => expectCase(c));
  });
});

describe("shared components", () => {
  it("reports a change in a shared schema once, listing every operation and webhook that reaches it", () => {
    const changes = changesAfter((d) => {
      schemas(d).Ulid.pattern = "^[0-9A-Z]{26}$";
    });
    const atUlid = changes.filter((change) => change.location === "#/components/schemas/Ulid");
    // Requests (the partner writes ULIDs) and responses (the partner reads them) classify differently.
    expect(atUlid.map((change) => change.class).sort()).toEqual(["breaking"]);
    const users = atUlid[0]!.usedBy;
    expect(users).toContain("POST /v1/cards");
    expect(users).toContain("webhook payment_route.created POST");
    expect(users.length).toBeGreaterThan(5);
  });

  it("classifies one component change by each direction it is used in", () => {
    // Ulid's maxLength grows: harmless for requests that send one, breaking for partners reading one.
    const changes = changesAfter((d) => {
      schemas(d).Ulid.maxLength = 30;
    });
    const atUlid = changes.filter((change) => change.location === "#/components/schemas/Ulid");
    expect(atUlid.map((change) => change.class).sort()).toEqual(["breaking", "compatible"]);
    const breakingOne = atUlid.find((change) => change.class === "breaking")!;
    expect(breakingOne.usedBy).toContain("GET /v1/cards");
    expect(breakingOne.usedBy).toContain("webhook payment_route.created POST");
    // GET /v1/card-bins only sends a ULID (the X-Company-Id header): compatible there.
    expect(breakingOne.usedBy).not.toContain("GET /v1/card-bins");
    expect(atUlid.find((change) => change.class === "compatible")!.usedBy).toContain("GET /v1/card-bins");
  });
});

describe("document-level changes", () => {
  it("treats a version change as documentation and a removed server as breaking", () => {
    const changes = changesAfter((d: JsonObject & Any) => {
      d.info.version = "1.1.0";
      d.servers.pop();
    });
    expect(changes.find((c) => c.kind === "version-changed")?.class).toBe("documentation");
    expect(changes.find((c) => c.kind === "server-removed")?.class).toBe("breaking");
  });
  it("treats a changed security scheme as breaking", () => {
    const changes = changesAfter((d) => {
      d.components.securitySchemes.ApiKey.name = "Authorization";
    });
    expect(changes.map((c) => `${c.class} ${c.id}`)).toContain(
      "breaking security-scheme-changed #/components/securitySchemes/ApiKey",
    );
  });
  it("treats an unrecognised schema keyword change as breaking rather than passing it silently", () => {
    const changes = changesAfter((d) => {
      schemas(d).Card.properties.brand.readOnly = true;
    });
    expect(changes.find((c) => c.kind === "keyword-changed")?.class).toBe("breaking");
  });
});
