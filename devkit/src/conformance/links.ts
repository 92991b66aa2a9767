/**
 * Where verify finds the ids an operation needs. The contract declares no OpenAPI links, so they are written
 * here, once: which answer yields which value (a company id from listCompanies, a card id from listCards or a
 * ledger entry, a BIN from listCardBins, a transaction id from a ledger entry…), which parameter and which body
 * field takes it, and what to do when nothing yields it. Values the partner API cannot give (card holders,
 * wallets, payment routes) come from the sandbox's control API when the target serves it, or from `--id`.
 */

/** Which value a parameter takes, by the parameter's name. */
export const PARAMETER_VALUES: ReadonlyMap<string, string> = new Map([
  ["X-Company-Id", "companyId"],
  ["cardId", "cardId"],
  ["cardHolderId", "cardHolderId"],
  ["routeId", "routeId"],
  ["walletId", "walletId"],
  ["transactionId", "transactionId"],
]);

/** Body fields that must name something that exists, by operation: field → value. */
export const BODY_VALUES: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map([
  [
    "createCard",
    new Map([
      ["cardHolderId", "cardHolderId"],
      ["bin", "bin"],
    ]),
  ],
]);

/** Values that belong to one company: an operation acting for a company takes them from that company only. */
export const COMPANY_SCOPED_VALUES: ReadonlySet<string> = new Set([
  "cardId",
  "cardHolderId",
  "bin",
  "walletId",
  "routeId",
]);

export interface ValueSource {
  operationId: string;
  value: string;
  /** Where in the answer: property names, `[]` for every item of an array. */
  at: string;
  /**
   * False when the contract does not promise that the value works everywhere the parameter is used (a ledger
   * entry's transaction id for getTransaction): a 404 for it is then no failure.
   */
  strong: boolean;
}

export const VALUE_SOURCES: readonly ValueSource[] = [
  { operationId: "listCompanies", value: "companyId", at: "companies[].id", strong: true },
  { operationId: "onboardCompany", value: "companyId", at: "company.id", strong: true },
  { operationId: "listCards", value: "cardId", at: "cards[].id", strong: true },
  { operationId: "createCard", value: "cardId", at: "card.id", strong: true },
  { operationId: "listCardBins", value: "bin", at: "cardBins[].bin", strong: true },
  { operationId: "listSpendingAccountTransactions", value: "cardId", at: "transactions[].data.card.id", strong: true },
  {
    operationId: "listSpendingAccountTransactions",
    value: "transactionId",
    at: "transactions[].transaction.id",
    strong: false,
  },
];

/** Why a value may be missing, and how to supply it. */
export const HOW_TO_SUPPLY: ReadonlyMap<string, string> = new Map([
  ["companyId", "listCompanies lists no company; pass --company-id, or --allow-writes to onboard one"],
  ["cardId", "the company has no card; --allow-writes creates one (it needs a card holder id)"],
  [
    "cardHolderId",
    "the partner API lists no card holders; pass --id cardHolderId=<id>, or verify a sandbox (its control API lists them)",
  ],
  [
    "walletId",
    "the partner API lists no wallets; pass --id walletId=<id>, or verify a sandbox (its control API lists them)",
  ],
  [
    "routeId",
    "the partner API lists no payment routes; pass --id routeId=<id>, or verify a sandbox with --allow-writes (its control API opens one)",
  ],
  [
    "transactionId",
    "no transaction was found; pass --id transactionId=<id>, or verify a sandbox with --allow-writes (a deposit makes one)",
  ],
  ["bin", "listCardBins lists no BIN for the company"],
]);

/**
 * Every string at `at` in a JSON value (`companies[].id`: the id of each company), in order. One pass over
 * the nodes each step reaches, without recursion or spreading an array into arguments: an answer listing
 * 150,000 companies costs 150,000 steps, not the stack.
 */
export function valuesAt(value: unknown, at: string): string[] {
  let nodes: unknown[] = [value];
  for (const part of at.split(".")) {
    const many = part.endsWith("[]");
    const key = many ? part.slice(0, -2) : part;
    const next: unknown[] = [];
    for (const node of nodes) {
      if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
      if (!Object.hasOwn(node, key)) continue;
      const child = (node as Record<string, unknown>)[key];
      if (many) {
        if (Array.isArray(child)) for (const item of child) next.push(item);
      } else if (child !== undefined) next.push(child);
    }
    nodes = next;
  }
  return nodes.filter((node): node is string => typeof node === "string" && node !== "");
}

/** One value found: where, for which company, and how far the contract vouches for it. */
export interface Found {
  name: string;
  value: string;
  /** The company it belongs to, for company-scoped values. */
  companyId?: string;
  /** Where it came from, for messages: "listCards", "--id", "the sandbox's control API". */
  from: string;
  strong: boolean;
  /** Chains a wallet takes, when known. */
  chains?: string[];
}

/** The values one account's answers yielded, in the order found; the first of a name wins where one is needed. */
export class FoundValues {
  private readonly byName = new Map<string, Found[]>();
  /** Each value already found, by name, company and value: finding it again costs one look-up. */
  private readonly seen = new Set<string>();

  add(found: Found): void {
    const key = `${found.name}\u0000${found.companyId ?? ""}\u0000${found.value}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    let list = this.byName.get(found.name);
    if (!list) {
      list = [];
      this.byName.set(found.name, list);
    }
    list.push(found);
  }

  /** Values of a name; with a company, the company's own and the unscoped ones. */
  get(name: string, companyId?: string): Found[] {
    const list = this.byName.get(name) ?? [];
    if (companyId === undefined || !COMPANY_SCOPED_VALUES.has(name)) return list;
    return list.filter((found) => found.companyId === companyId || found.companyId === undefined);
  }

  /** Every id this account's answers named (BINs and chains aside: they are catalogue values, not objects). */
  objectIds(): Set<string> {
    const ids = new Set<string>();
    for (const [name, list] of this.byName) if (name !== "bin") for (const found of list) ids.add(found.value);
    return ids;
  }

  /** Takes the values an answer of `operationId` holds. */
  takeFrom(operationId: string, json: unknown, companyId: string | undefined): void {
    for (const source of VALUE_SOURCES) {
      if (source.operationId !== operationId) continue;
      for (const value of valuesAt(json, source.at))
        this.add({
          name: source.value,
          value,
          ...(COMPANY_SCOPED_VALUES.has(source.value) && companyId !== undefined ? { companyId } : {}),
          from: operationId,
          strong: source.strong,
        });
    }
  }
}
