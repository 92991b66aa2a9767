/**
 * The records the contract's examples name, in every new account (devkit/src/sandbox/flows/examples.ts): each
 * operation's request exactly as the reference's samples send it (the contract's examples, nothing swapped) is
 * answered 2xx by a fresh account, twice over (the samples run again and again). And what the isolation checks
 * leave out (conformance/example-ids.ts). test/docs/samples-run.test.ts runs the samples themselves (slow).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractExampleIds } from "../../devkit/src/conformance/example-ids.ts";
import { readContractExamples } from "../../devkit/src/sandbox/flows/examples.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { operationExamples } from "../../scripts/lib/docs/samples.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { requestOf } from "../docs/support/live-sandbox.ts";

const document = loadDocument();
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 3 });
});
afterAll(() => sandbox.stop());

describe("a fresh account holds what the contract's examples name", () => {
  it("answers every operation's example request 2xx, as displayed, and again", async () => {
    const operations = operationExamples(document);
    expect(operations.length).toBeGreaterThan(10);
    for (const key of ["sk_test_fresh_account"])
      for (let round = 0; round < 2; round++)
        for (const operation of operations) {
          const request = requestOf(operation, key);
          const answer = await fetch(sandbox.url + request.target(), {
            method: operation.method.toUpperCase(),
            headers: request.headers,
            ...(request.body === undefined ? {} : { body: request.body }),
          });
          const text = await answer.text();
          expect(operation.result.statuses, `${key} ${operation.operationId}: ${answer.status} ${text}`).toContain(
            answer.status,
          );
        }
  });

  it("reads them from the contract: a changed example changes what is seeded, a missing one is named", () => {
    const changed = structuredClone(document) as any;
    changed.components.parameters.CompanyId.example = "01JD8XZZZZZZZZZZZZZZZZZZZZ";
    expect(readContractExamples(changed).companyId).toBe("01JD8XZZZZZZZZZZZZZZZZZZZZ");
    const withBin = readContractExamples(document);
    const bin = withBin.card.bin;
    expect(withBin.cardBins.map((known) => known.bin)).toContain(bin);
    // The createCard example's BIN must be one listCardBins' example offers.
    const noBins = structuredClone(document) as any;
    for (const example of Object.values<any>(
      noBins.paths["/v1/card-bins"].get.responses["200"].content["application/json"].examples,
    ))
      example.value.cardBins = [];
    expect(() => readContractExamples(noBins)).toThrow(new RegExp(`BIN ${bin} is in no listCardBins example`));
  });
});

describe("ULIDs in either letter case", () => {
  it("name the same records: the ULID standard reads either case, and so does the contract", async () => {
    const examples = readContractExamples(document);
    const headers = { "X-API-Key": "sk_test_lower_case", "X-Company-Id": examples.companyId.toLowerCase() };
    const holder = await fetch(`${sandbox.url}/v1/card-holders/${examples.cardHolder.id.toLowerCase()}`, { headers });
    expect(holder.status).toBe(200);
    expect(((await holder.json()) as any).cardHolder.id).toBe(examples.cardHolder.id);
    // A letter outside Crockford base32 is no ULID in either case: refused, naming the header.
    const bad = await fetch(`${sandbox.url}/v1/card-bins`, {
      headers: { ...headers, "X-Company-Id": `${examples.companyId.slice(0, -1)}u` },
    });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("X-Company-Id");
  });
});

describe("contractExampleIds", () => {
  it("holds the id parameters' examples and the ids inside examples, never a catalogue value", () => {
    const ids = contractExampleIds(document);
    const examples = readContractExamples(document);
    for (const id of [
      examples.companyId,
      examples.cardHolder.id,
      examples.card.card.id,
      examples.wallet.id,
      examples.route.id,
      ...examples.transactions.map((transaction) => transaction.id),
    ])
      expect(ids, id).toContain(id);
    // A BIN and a chain are catalogue values, the same for every account by nature.
    expect(ids).not.toContain(examples.card.bin);
    expect(ids).not.toContain("TRX");
  });
});
