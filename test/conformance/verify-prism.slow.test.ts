/**
 * SLOW (starts Prism, about 5 s): `partner-api verify` against `npm run mock` (Prism serving the contract). Prism
 * conforms except where it is documented to differ: the checks it fails are exactly those docs/partners.md lists
 * under "What verify reports against the mock", and nothing else.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type VerifyReport, verify } from "../../devkit/src/conformance/verify.ts";
import { startPrismBehindFront } from "../../devkit/src/mock-front.ts";
import type { PrismServer } from "../../devkit/src/prism.ts";

let prism: PrismServer;
let report: VerifyReport;
beforeAll(async () => {
  prism = await startPrismBehindFront();
  report = await verify({ baseUrl: prism.url, apiKey: "a", otherApiKey: "b", allowWrites: true });
}, 120_000);
afterAll(async () => {
  await prism?.stop();
});

/** The check ids the guide lists as Prism's documented differences. */
function documentedDifferences(): Set<string> {
  const guide = readFileSync("docs/partners.md", "utf8");
  const start = guide.indexOf("### What verify reports against the mock");
  expect(start, "docs/partners.md has the section").toBeGreaterThan(-1);
  const section = guide.slice(start, guide.indexOf("\n## ", start));
  return new Set([...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]!));
}

it("Prism fails only the documented checks, and every operation is exercised or skipped with a reason", () => {
  const documented = documentedDifferences();
  expect(documented).toEqual(new Set(["unsupported_method"]));
  const reported = new Set([...report.failures, ...report.warnings].map((failure) => failure.check));
  expect([...reported].filter((check) => !documented.has(check))).toEqual([]);
  for (const skip of report.skipped) expect(skip.reason.length).toBeGreaterThan(10);
});

it("what the mock cannot reach is what the guide names, and makes the verdict 'could not check'", () => {
  const guide = readFileSync("docs/partners.md", "utf8");
  const section = guide.slice(guide.indexOf("### What verify reports against the mock"));
  const named = section.slice(0, section.indexOf("\n## ")).match(/could not check[^.]*\./)?.[0] ?? "";
  const unreached = report.notExercised.map((skip) => skip.what);
  expect(unreached.sort()).toEqual(
    ["createCard", "getCardHolder", "getPaymentInstructions", "getPaymentRoute", "openWalletAddress"].sort(),
  );
  for (const operationId of unreached) expect(named).toContain(operationId);
  expect(report.couldNotCheck).toBe(true);
  expect(report.exercised).toMatchObject({ operations: 10, allowed: 15 });
});

it("the documented differences are what the guide says: 405 without Allow; no isolation failure on example ids", () => {
  // Prism answers only the contract's example ids, which every sandbox account holds: no isolation evidence.
  expect(report.failures.map((f) => `${f.check} ${f.operationId} ${f.label} ${f.message}`)).toEqual([]);
  expect(report.warnings.length).toBeGreaterThan(0);
  expect(report.warnings.every((warning) => /405 without the Allow header/.test(warning.message))).toBe(true);
});
