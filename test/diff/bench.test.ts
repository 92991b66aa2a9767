/** The diff benchmark's input: a mutated copy of the bundle that the comparison must see as changed. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { mutatedCopy } from "../../bench/diff.ts";
import { diffContracts } from "../../scripts/lib/diff/report.ts";
import type { Document } from "../../scripts/lib/diff/resolve.ts";
import { bundleJsonPath } from "../../scripts/lib/paths.ts";

describe("mutatedCopy", () => {
  it("adds one field to a shared schema of a copy, leaving the bundle as it was", () => {
    const text = readFileSync(bundleJsonPath, "utf8");
    const bundle = JSON.parse(text) as Document;
    const copy = mutatedCopy(bundle);
    expect(JSON.stringify(bundle, null, 2)).toBe(text.trimEnd());
    const changes = diffContracts({ document: bundle, label: "base" }, { document: copy, label: "head" }).changes;
    expect(changes.map((change) => change.message)).toContain("optional field `benchAddedField` added");
  });
});
