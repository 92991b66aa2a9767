/**
 * What a code sample knows about one operation, all taken from the contract: samples.ts builds it, each language in
 * languages/ writes a sample from it. Its own module so that the languages and samples.ts import one way.
 */
import type { HttpMethod } from "partner-api-client";
import type { Json } from "partner-api-devkit/cli";

/** What a sample needs to know about one operation, all taken from the contract. */
export interface OperationExample {
  operationId: string;
  method: HttpMethod;
  path: string;
  /** The X-Company-Id example when the operation is company-scope, otherwise undefined. */
  companyId: string | undefined;
  pathParams: Array<[name: string, value: Json]>;
  queryParams: Array<[name: string, value: Json]>;
  /** Other required header parameters, with their examples. */
  headerParams: Array<[name: string, value: Json]>;
  /** The first named request example (or the media type's `example`), when the operation has a body. */
  body: { name: string; value: Json } | undefined;
  /** What the samples read from the answer, from the contract's success response. */
  result: ResultRead;
}

/**
 * What a sample prints of an answer: the status, then one line per object read: the values of `fields`, joined by
 * a space. The object is the answer itself (`at` empty) or its first property holding an object or a list (`at`
 * its name; `list`: one line per item). Every response field may be absent, so each language reads them safely.
 */
export interface ResultRead {
  /** The 2xx statuses the contract declares for the operation. */
  statuses: number[];
  at: string | undefined;
  list: boolean;
  /** Paths of string fields inside the object (or each item): `["id"]`, `["transaction", "id"]`. */
  fields: string[][];
}
