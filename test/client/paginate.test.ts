import { describe, expect, test } from "vitest";
import { ApiError, InvalidInputError, PageLimitError, PartnerApiError, paginate } from "../../src/index.ts";
import { COMPANY, json, type Sent, testClient } from "./helpers.ts";

const card = (n: number) => ({ id: `card-${n}`, name: `Card ${n}` });

/** A server holding `total` cards, answering `page` and `limit` like a well-behaved API. */
function cardServer(total: number, options: { perPage?: number; reportPagination?: boolean } = {}) {
  return (sent: Sent) => {
    const perPage = Number(sent.query.get("limit") ?? options.perPage ?? 3);
    const page = Number(sent.query.get("page"));
    const cards = Array.from({ length: total }, (_, i) => card(i + 1)).slice((page - 1) * perPage, page * perPage);
    const pagination = { currentPage: page, totalPages: Math.ceil(total / perPage), perPage };
    return json(options.reportPagination === false ? { cards } : { cards, pagination });
  };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe("paginate", () => {
  test("reads every page up to the last one pagination reports", async () => {
    const { company, sent } = testClient(cardServer(7));
    const cards = await collect(paginate(company, "/v1/cards"));
    expect(cards.map((c) => c.id)).toEqual(["card-1", "card-2", "card-3", "card-4", "card-5", "card-6", "card-7"]);
    expect(sent.map((s) => s.query.get("page"))).toEqual(["1", "2", "3"]);
  });

  test("stops at the last page even when it is full (no extra request)", async () => {
    const { company, sent } = testClient(cardServer(6));
    expect(await collect(paginate(company, "/v1/cards"))).toHaveLength(6);
    expect(sent).toHaveLength(2);
  });

  test("passes query, company header and signal; starts at params.query.page", async () => {
    const { client, sent } = testClient(cardServer(10));
    const cards = await collect(
      paginate(client, "/v1/cards", {
        params: { header: { "X-Company-Id": COMPANY }, query: { limit: 4, keyword: "travel", page: 2 } },
      }),
    );
    expect(cards.map((c) => c.id)).toEqual(["card-5", "card-6", "card-7", "card-8", "card-9", "card-10"]);
    expect(
      sent.map((s) => [
        s.query.get("page"),
        s.query.get("limit"),
        s.query.get("keyword"),
        s.headers.get("X-Company-Id"),
      ]),
    ).toEqual([
      ["2", "4", "travel", COMPANY],
      ["3", "4", "travel", COMPANY],
    ]);
  });

  test("without pagination: stops on a page shorter than limit", async () => {
    const { company, sent } = testClient(cardServer(5, { reportPagination: false }));
    expect(await collect(paginate(company, "/v1/cards", { params: { query: { limit: 2 } } }))).toHaveLength(5);
    expect(sent).toHaveLength(3);
  });

  test("without pagination or limit: stops on an empty page", async () => {
    const { company, sent } = testClient(cardServer(4, { reportPagination: false, perPage: 2 }));
    expect(await collect(paginate(company, "/v1/cards"))).toHaveLength(4);
    expect(sent).toHaveLength(3);
  });

  test("stops on a page shorter than perPage", async () => {
    const { company, sent } = testClient((s) =>
      json({ cards: s.query.get("page") === "1" ? [card(1), card(2)] : [card(3)], pagination: { perPage: 2 } }),
    );
    expect((await collect(paginate(company, "/v1/cards"))).map((c) => c.id)).toEqual(["card-1", "card-2", "card-3"]);
    expect(sent).toHaveLength(2);
  });

  test("stops when a server ignores page and repeats the same page (as a static mock does)", async () => {
    const { company, sent } = testClient(() => json({ cards: [card(1), card(2)] }));
    expect((await collect(paginate(company, "/v1/cards"))).map((c) => c.id)).toEqual(["card-1", "card-2"]);
    expect(sent).toHaveLength(2);
  });

  test("stops when currentPage does not advance, even with different items", async () => {
    let n = 0;
    const { company, sent } = testClient(() =>
      json({ transactions: [{ type: "Account", n: n++ }], pagination: { currentPage: 1, totalPages: 9 } }),
    );
    expect(await collect(paginate(company, "/v1/card-spending-account/transactions"))).toHaveLength(1);
    expect(sent).toHaveLength(2);
  });

  test("stops at maxItems without reading further pages", async () => {
    const { company, sent } = testClient(cardServer(100));
    expect((await collect(paginate(company, "/v1/cards", { maxItems: 4 }))).map((c) => c.id)).toEqual([
      "card-1",
      "card-2",
      "card-3",
      "card-4",
    ]);
    expect(sent).toHaveLength(2);
    const none = testClient(cardServer(100));
    expect(await collect(paginate(none.company, "/v1/cards", { maxItems: 0 }))).toEqual([]);
    expect(none.sent).toHaveLength(0);
  });

  test("an endless list ends with a PageLimitError at maxPages (not an input error)", async () => {
    let n = 0;
    const { company, sent } = testClient(() => json({ cards: [card(n++)] }));
    const error = await collect(paginate(company, "/v1/cards", { maxPages: 5 })).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PageLimitError);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).not.toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ name: "PageLimitError", path: "/v1/cards", maxPages: 5 });
    expect((error as Error).message).toMatch(
      /^partner-api-client: paginate\(\/v1\/cards\) read 5 pages without reaching the last one/,
    );
    expect(sent).toHaveLength(5);
  });

  test("an error answer throws ApiError", async () => {
    const { company } = testClient(() => json({ message: "nope" }, 403));
    await expect(collect(paginate(company, "/v1/cards"))).rejects.toBeInstanceOf(ApiError);
  });

  test("bad arguments are named", () => {
    const { company } = testClient();
    expect(() => paginate(company, "/v1/card-bins" as "/v1/cards")).toThrow(
      /paginate\(\) lists "\/v1\/cards" and "\/v1\/card-spending-account\/transactions", got "\/v1\/card-bins"/,
    );
    expect(() => paginate(company, "/v1/cards", { maxItems: -1 })).toThrow(InvalidInputError);
    expect(() => paginate(company, "/v1/cards", { params: { query: { page: 0 } } })).toThrow(
      /params.query.page must be a whole number of at least 1/,
    );
    expect(() => paginate({} as typeof company, "/v1/cards")).toThrow(/takes a client from createPartnerClient/);
  });
});
