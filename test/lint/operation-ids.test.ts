/** An operationId is unique across the partner contract and the sandbox's control contract (npm run lint). */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lintOperationIdsAcrossContracts } from "../../scripts/lib/lint.ts";

const load = (file: string) => JSON.parse(readFileSync(new URL(`../../generated/${file}`, import.meta.url), "utf8"));

describe("operationIds across both contracts", () => {
  it("finds no clash in the contracts as they are", () => {
    expect(lintOperationIdsAcrossContracts(load("openapi.json"), load("sandbox.json"))).toEqual([]);
  });

  it("refuses an id both contracts use, naming it, both operations and the split files that declare it", () => {
    const partner = load("openapi.json");
    const control = load("sandbox.json");
    const [controlPath, controlItem] = Object.entries<any>(control.paths)[0]!;
    const method = Object.keys(controlItem).find((key) => controlItem[key]?.operationId)!;
    controlItem[method].operationId = "listCards";
    const dir = mkdtempSync(path.join(os.tmpdir(), "operation-ids-"));
    try {
      mkdirSync(path.join(dir, "partner"));
      mkdirSync(path.join(dir, "control"));
      writeFileSync(path.join(dir, "partner", "cards.yaml"), "get:\n  operationId: listCards\n");
      writeFileSync(path.join(dir, "control", "thing.yaml"), "summary: x\nget:\n  operationId: 'listCards'\n");
      const findings = lintOperationIdsAcrossContracts(partner, control, {
        partner: path.join(dir, "partner"),
        control: path.join(dir, "control"),
      });
      expect(findings).toHaveLength(1);
      expect(findings[0]!.rule).toBe("operation-id-unique");
      expect(findings[0]!.severity).toBe("error");
      expect(findings[0]!.message).toContain('operationId "listCards" is used by both contracts');
      expect(findings[0]!.message).toContain("GET /v1/cards in the partner contract");
      expect(findings[0]!.message).toContain(
        `${method.toUpperCase()} ${controlPath} in the sandbox's control contract`,
      );
      expect(findings[0]!.message).toMatch(/cards\.yaml:2:1/);
      expect(findings[0]!.where).toMatch(/thing\.yaml:3:1$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
