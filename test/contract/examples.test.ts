/**
 * Named response examples: each one selected through `Prefer: code=<status>, example=<name>` comes back
 * from the mock exactly, with its documented status and media type.
 */
import { expect, inject, it } from "vitest";
import { listOperations, loadDocument } from "./support/contract.ts";
import { call, explain } from "./support/http.ts";

const operations = listOperations(loadDocument());
const baseUrl = inject("prismUrl");

const cases = operations.flatMap((op) =>
  [...op.responses].flatMap(([status, contents]) =>
    contents.flatMap((content) =>
      Object.entries(content.examples).map(([name, value]) => ({
        id: `${op.operationId} ${status} ${name}`,
        op,
        status,
        content,
        name,
        value,
      })),
    ),
  ),
);
const bodies = Object.fromEntries(
  operations.map((op) => [op.operationId, op.requestBody ? Object.values(op.requestBody.examples)[0] : undefined]),
);

it("every operation has at least one named response example", () => {
  const without = operations.filter((op) => !cases.some((c) => c.op === op)).map((op) => op.operationId);
  expect(without).toEqual([]);
});

it.each(cases.map((c) => [c.id, c] as const))("%s is returned as written", async (_, c) => {
  const result = await call(baseUrl, c.op, {
    body: bodies[c.op.operationId],
    prefer: `code=${c.status}, example=${c.name}`,
  });
  expect(result.status, explain(result)).toBe(Number(c.status));
  expect(result.mediaType).toBe(c.content.mediaType);
  expect(result.body).toEqual(c.value);
});

it("an unknown example name is refused, not answered with another example", async () => {
  const op = cases[0]!.op;
  const result = await call(baseUrl, op, { body: bodies[op.operationId], prefer: "example=noSuchExample" });
  expect(result.status, explain(result)).toBeGreaterThanOrEqual(400);
  expect(result.status).toBeLessThan(500);
});
