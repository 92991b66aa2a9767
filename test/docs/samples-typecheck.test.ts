import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { addCodeSamples, type OperationExample, typescriptSample } from "../../scripts/lib/docs/samples.ts";
import { clientEntryPath, typecheckSamples } from "../../scripts/lib/docs/typecheck.ts";
import { HTTP_METHODS } from "../../src/http-methods.ts";
import { loadDocument } from "../contract/support/contract.ts";

/** Every generated TypeScript sample, by operationId, read back from the decorated document as Redoc gets it. */
function generatedTypeScriptSamples(): Array<{ name: string; source: string }> {
  const { document } = addCodeSamples(loadDocument()) as { document: any };
  const samples: Array<{ name: string; source: string }> = [];
  for (const item of Object.values<any>(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const sample = operation["x-codeSamples"].find((s: any) => s.label === "TypeScript");
      samples.push({ name: operation.operationId, source: sample.source });
    }
  }
  return samples;
}

const clientReady =
  existsSync(clientEntryPath) && /\bcreatePartnerClient\b/.test(readFileSync(clientEntryPath, "utf8"));

describe("generated TypeScript samples against the real client", () => {
  it("the client entry point exists and exports createPartnerClient", () => {
    expect(clientReady, "src/index.ts must export createPartnerClient").toBe(true);
  });

  it.skipIf(!clientReady)(
    "every sample (one per operation) compiles with the repository's strict settings",
    async () => {
      const samples = generatedTypeScriptSamples();
      expect(samples).toHaveLength(15);
      const errors = await typecheckSamples(samples);
      expect(errors.map((e) => `${e.sample}:${e.line} ${e.message}`)).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!clientReady)(
    "the check fails on wrong samples: unknown path, bad body, missing company scope",
    async () => {
      const base: OperationExample = {
        operationId: "x",
        method: "post",
        path: "/v1/cards",
        companyId: "01JD8X2K7P3M9Q4R6S8T0V2W4X",
        pathParams: [],
        queryParams: [],
        headerParams: [],
        body: { name: "bad", value: { name: "no card holder, no category, no bin" } },
      };
      const errors = await typecheckSamples([
        {
          name: "unknownPath",
          source: typescriptSample({
            ...base,
            path: "/v1/no-such-path",
            body: undefined,
            method: "get",
            queryParams: [["page", 1]],
          }),
        },
        { name: "badBody", source: typescriptSample(base) },
        {
          name: "noCompany",
          source: typescriptSample({
            ...base,
            companyId: undefined,
            method: "get",
            body: undefined,
            queryParams: [["page", 1]],
          }),
        },
      ]);
      const messages = (sample: string) =>
        errors
          .filter((e) => e.sample === sample)
          .map((e) => e.message)
          .join("\n");
      expect(new Set(errors.map((e) => e.sample))).toEqual(new Set(["badBody", "noCompany", "unknownPath"]));
      expect(messages("unknownPath")).toContain('"/v1/no-such-path"');
      expect(messages("badBody")).toMatch(/missing the following properties.*cardHolderId/);
      expect(messages("noCompany")).toContain("X-Company-Id");
    },
    120_000,
  );

  it("rejects sample names that are not safe file names, and an empty list", async () => {
    await expect(typecheckSamples([{ name: "../escape", source: "" }])).rejects.toThrow(/sample name "..\/escape"/);
    await expect(typecheckSamples([])).rejects.toThrow(/at least one sample/);
  });
});
