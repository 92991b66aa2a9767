/**
 * The contract's OpenAPI links, and the rule that every one resolves (partner-links-resolve): at least eight in the
 * bundle, the company id of onboardCompany and listCompanies into every company-scope operation's X-Company-Id, a
 * card id into the card operations, a ledger entry's transaction.id into getTransaction; and the rule fires on each
 * way a link can fail to resolve, with that rule alone on.
 */
import { describe, expect, it } from "vitest";
import { loadDocument } from "../contract/support/contract.ts";
import { linterForRule } from "../helpers/spectral.ts";

type Link = { operationId?: string; operationRef?: string; parameters?: Record<string, string>; description?: string };

/** Every link of the bundle: source operation, status, name, link. */
function linksOf(document: any): { source: string; status: string; name: string; link: Link }[] {
  const found = [];
  for (const item of Object.values<any>(document.paths))
    for (const operation of Object.values<any>(item))
      for (const [status, response] of Object.entries<any>(operation?.responses ?? {}))
        for (const [name, link] of Object.entries<Link>(response.links ?? {}))
          found.push({ source: operation.operationId, status, name, link });
  return found;
}

const COMPANY_SCOPE = [
  "createCard",
  "listCards",
  "updateCardSpendSettings",
  "unfreezeCard",
  "createCardDetailsToken",
  "getCardHolder",
  "listCardBins",
  "listSpendingAccountTransactions",
  "openWalletAddress",
  "submitKybProfile",
  "getPaymentRoute",
  "getPaymentInstructions",
];

describe("the contract's links", () => {
  const links = linksOf(loadDocument());
  const targets = (source: string) =>
    links.filter((found) => found.source === source).map((found) => found.link.operationId);

  it("are at least eight, each citing the API description", () => {
    expect(links.length).toBeGreaterThanOrEqual(8);
    for (const { link } of links) expect(link.description).toMatch(/API description, .*"[^"]{12,}"/);
  });

  it("take a company id from onboardCompany and listCompanies into X-Company-Id of every company-scope operation", () => {
    expect(targets("onboardCompany").sort()).toEqual([...COMPANY_SCOPE].sort());
    expect(targets("listCompanies").sort()).toEqual([...COMPANY_SCOPE].sort());
    for (const { link } of links.filter((found) => found.source === "onboardCompany"))
      expect(link.parameters).toEqual({ "header.X-Company-Id": "$response.body#/company/id" });
  });

  it("take a card id from createCard and listCards into the card operations; none reads a ledger entry back", () => {
    for (const source of ["createCard", "listCards"])
      expect(targets(source).sort()).toEqual(["createCardDetailsToken", "unfreezeCard", "updateCardSpendSettings"]);
    // The source never says a ledger entry's transaction.id reads back through getTransaction (a sandbox reading).
    expect(links.find((found) => found.source === "listSpendingAccountTransactions")).toBeUndefined();
  });
});

describe("partner-links-resolve", async () => {
  const lint = await linterForRule("partner-links-resolve");
  const withLink = (change: (link: Link, document: any) => void) => {
    const document = loadDocument();
    change(document.paths["/v1/cards"].post.responses["201"].links.unfreezeCard, document);
    return document;
  };
  const messages = async (document: unknown) => (await lint(document)).map((result) => result.message);

  it("stays quiet on the contract", async () => {
    expect(await lint(loadDocument())).toEqual([]);
  });

  it("fires on an operationId or operationRef that names no operation", async () => {
    expect(await messages(withLink((link) => (link.operationId = "thawCard")))).toEqual([
      'Link "unfreezeCard" of createCard 201: operationId "thawCard" is no operation of this document.',
    ]);
    const byRef = withLink((link) => {
      delete link.operationId;
      link.operationRef = "#/paths/~1v1~1cards~1{cardId}~1thaw/patch";
    });
    expect(await messages(byRef)).toEqual([
      'Link "unfreezeCard" of createCard 201: operationRef "#/paths/~1v1~1cards~1{cardId}~1thaw/patch" points at no operation of this document.',
    ]);
    const goodRef = withLink((link) => {
      delete link.operationId;
      link.operationRef = "#/paths/~1v1~1cards~1{cardId}~1unfreeze/patch";
    });
    expect(await messages(goodRef)).toEqual([]);
  });

  it("fires on a parameter the target does not take", async () => {
    expect(await messages(withLink((link) => (link.parameters!["path.card"] = "$response.body#/card/id")))).toEqual([
      'Link "unfreezeCard" of createCard 201: unfreezeCard takes no parameter path.card.',
    ]);
  });

  it("fires on an expression that reads what the response or the request does not have", async () => {
    const found = await messages(
      withLink((link) => {
        link.parameters!["path.cardId"] = "$response.body#/card/number";
        link.parameters!["header.X-Company-Id"] = "$request.header.X-Tenant";
      }),
    );
    expect(found).toEqual([
      `Link "unfreezeCard" of createCard 201: "$response.body#/card/number": the response body's schema has nothing at /card/number.`,
      'Link "unfreezeCard" of createCard 201: "$request.header.X-Tenant": createCard takes no header parameter X-Tenant.',
    ]);
    expect(await messages(withLink((link) => (link.parameters!["path.cardId"] = "$response.cardId")))).toEqual([
      'Link "unfreezeCard" of createCard 201: "$response.cardId" is not a runtime expression a link can use.',
    ]);
  });

  it("fires on a link that cites nothing", async () => {
    expect(await messages(withLink((link) => (link.description = "The card's id.")))).toEqual([
      'Link "unfreezeCard" of createCard 201: its description must cite the API description: a quoted passage ("…") saying the value flows there.',
    ]);
  });
});
