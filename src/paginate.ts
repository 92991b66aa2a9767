/**
 * `paginate()`: the items of a paged list operation, page after page, as an async iterable.
 * It ends on every server: at the last page `pagination` reports, on an empty or short page, on a page
 * that repeats the previous one or does not advance `currentPage` (a server or mock that ignores `page`),
 * at `maxItems`, and with a `PageLimitError` after `maxPages`.
 */
import type { Client, FetchOptions } from "openapi-fetch";
import { pageable } from "../generated/contract.ts";
import type { paths } from "../generated/schema.js";
import { InvalidInputError, PartnerApiError, unwrap } from "./errors.ts";
import { checkWholeNumber } from "./input.ts";
import type { ThrowingClient } from "./types.ts";

/** The list operations that take `page`, from the contract. */
export type PageablePath = keyof typeof pageable;

type ItemsIn<Body, Key> = Key extends keyof Body
  ? NonNullable<Body[Key]> extends readonly (infer Item)[]
    ? Item
    : never
  : never;

/** The type of one item listed by a pageable path. */
export type PageItem<Path extends PageablePath> = ItemsIn<
  paths[Path]["get"]["responses"][200]["content"]["application/json"],
  (typeof pageable)[Path]["itemsKey"]
>;

export interface PaginateLimits {
  /** Stop after this many items. */
  maxItems?: number;
  /** Throw after this many pages without reaching the end (default 10 000): a guard against an endless list. */
  maxPages?: number;
}

type OperationOf<PathItem> = PathItem extends { get: infer Operation } ? Operation : never;

/** The request options of the list operation (`params.query.page` is the first page, default 1), plus limits. */
export type PaginateInit<PathItem> = FetchOptions<OperationOf<PathItem>> & PaginateLimits;

type InitArgs<Init> = Record<never, never> extends Init ? [init?: Init] : [init: Init];

interface Pagination {
  currentPage?: number;
  totalPages?: number;
  perPage?: number;
}

const DEFAULT_MAX_PAGES = 10_000;

/**
 * `paginate()` read `maxPages` pages without reaching the end of the list. Not bad input: the list was longer
 * than the guard allows, or the server never says it has ended.
 */
export class PageLimitError extends PartnerApiError {
  override readonly name = "PageLimitError";
  /** The list operation's path, e.g. `/v1/cards`. */
  readonly path: string;
  readonly maxPages: number;

  constructor(path: string, maxPages: number) {
    super(`paginate(${path}) read ${maxPages} pages without reaching the last one; raise maxPages or set maxItems`);
    this.path = path;
    this.maxPages = maxPages;
  }
}

function checkLimit(value: unknown, name: string, min: number): number | undefined {
  return value === undefined ? undefined : checkWholeNumber(value, name, min);
}

function numberOr(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function paginate<Paths extends {}, Path extends PageablePath & keyof Paths>(
  client: Client<Paths> | ThrowingClient<Paths>,
  path: Path,
  ...args: InitArgs<PaginateInit<Paths[Path]>>
): AsyncGenerator<PageItem<Path>, void, undefined> {
  const init = (args[0] ?? {}) as PaginateLimits & { params?: { query?: Record<string, unknown> } } & Record<
      string,
      unknown
    >;
  if (!client || typeof (client as { GET?: unknown }).GET !== "function") {
    throw new InvalidInputError("client", "paginate() takes a client from createPartnerClient() as its first argument");
  }
  const facts = (pageable as Record<string, { itemsKey: string } | undefined>)[path];
  if (!facts) {
    throw new InvalidInputError(
      "path",
      `paginate() lists ${Object.keys(pageable)
        .map((p) => `"${p}"`)
        .join(" and ")}, got ${JSON.stringify(path)}`,
    );
  }
  const maxItems = checkLimit(init.maxItems, "maxItems", 0);
  const maxPages = checkLimit(init.maxPages, "maxPages", 1) ?? DEFAULT_MAX_PAGES;
  const { maxItems: _items, maxPages: _pages, ...requestInit } = init;
  const query = requestInit.params?.query ?? {};
  const firstPage = checkLimit(query.page, "params.query.page", 1) ?? 1;
  const limit = numberOr(query.limit);
  const get = (
    client as unknown as {
      GET: (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    }
  ).GET;

  return (async function* pages() {
    let yielded = 0;
    let previousItems: string | undefined;
    let previousPage: number | undefined;
    for (let page = firstPage, fetched = 0; maxItems === undefined || yielded < maxItems; fetched++) {
      if (fetched >= maxPages) {
        throw new PageLimitError(path, maxPages);
      }
      const data = unwrap(
        await get(path, { ...requestInit, params: { ...requestInit.params, query: { ...query, page } } }),
      ) as Record<string, unknown>;
      const items = (Array.isArray(data?.[facts.itemsKey]) ? data[facts.itemsKey] : []) as PageItem<Path>[];
      const pagination = (data?.pagination ?? {}) as Pagination;
      const currentPage = numberOr(pagination.currentPage);
      const serialized = JSON.stringify(items);
      if (items.length === 0 || serialized === previousItems) return;
      if (currentPage !== undefined && previousPage !== undefined && currentPage <= previousPage) return;
      for (const item of items) {
        if (maxItems !== undefined && yielded >= maxItems) return;
        yield item;
        yielded++;
      }
      const totalPages = numberOr(pagination.totalPages);
      const pageSize = numberOr(pagination.perPage) ?? limit;
      if (currentPage !== undefined && totalPages !== undefined && currentPage >= totalPages) return;
      if (pageSize !== undefined && items.length < pageSize) return;
      previousItems = serialized;
      previousPage = currentPage ?? page;
      page = (currentPage ?? page) + 1;
    }
  })();
}
