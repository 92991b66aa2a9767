/**
 * The release's own parts, in process: one version for the package and the contract, and the changelog in
 * partners' words. test/scripts/release.slow.test.ts makes whole releases in temporary git repositories.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Change } from "../../scripts/lib/diff/changes.ts";
import type { DiffReport } from "../../scripts/lib/diff/report.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { actionFor, operationNames, partnerChangelog } from "../../scripts/lib/release/changelog.ts";
import {
  compareVersions,
  contractVersionOf,
  currentVersion,
  withContractVersion,
} from "../../scripts/lib/release/versions.ts";
import { loadDocument } from "../contract/support/contract.ts";

describe("one version for the package and the contract", () => {
  it("counts on from the higher of the two, so neither goes back", () => {
    expect(currentVersion("0.1.0", "1.0.0")).toBe("1.0.0");
    expect(currentVersion("1.2.0", "1.0.0")).toBe("1.2.0");
    expect(currentVersion("0.3.0", undefined)).toBe("0.3.0");
    expect(currentVersion("0.3.0", "v2")).toBe("0.3.0");
    expect(() => currentVersion("1.0", "1.0.0")).toThrow(/package.json version "1.0" is not x.y.z/);
    expect(compareVersions("1.10.0", "1.9.9")).toBeGreaterThan(0);
    expect(compareVersions("2.0.0", "10.0.0")).toBeLessThan(0);
  });

  it("sets info.version in the contract's root file and changes no other byte", () => {
    const text = readFileSync(path.join(repoRoot, "openapi", "openapi.yaml"), "utf8");
    const changed = withContractVersion(text, "1.1.0");
    expect(contractVersionOf(changed)).toBe("1.1.0");
    const at = text.indexOf("  version: ");
    expect(changed.slice(0, at)).toBe(text.slice(0, at));
    expect(changed.replace("version: 1.1.0", "")).toBe(text.replace(/version: [^\n]*/, ""));
    // A quoted version and one in a nested map elsewhere are handled as YAML, not by line.
    const quoted = 'openapi: 3.1.0\ninfo:\n  title: T\n  version: "1.0.0" # kept\nx-other:\n  version: 9.9.9\n';
    expect(withContractVersion(quoted, "2.0.0")).toBe(
      "openapi: 3.1.0\ninfo:\n  title: T\n  version: 2.0.0 # kept\nx-other:\n  version: 9.9.9\n",
    );
    expect(() => withContractVersion("openapi: 3.1.0\ninfo:\n  title: T\n", "1.0.0")).toThrow(/no info.version/);
  });
});

function change(fields: Partial<Change> & Pick<Change, "check" | "level" | "location" | "message">): Change {
  const [, direction, kind] = /^(request-|response-)?(.*)$/.exec(fields.check)!;
  const flow = direction === "request-" ? "toService" : "toPartner";
  return { kind: kind!, flow, usedBy: [], documentation: false, ...fields };
}

function reportOf(changes: Change[]): DiffReport {
  const summary = { label: "x", version: "1.0.0", operations: 15, webhooks: 6 };
  return {
    base: summary,
    head: summary,
    changes,
    failOn: "error",
    failing: [],
    unusedAllowEntries: [],
    verdict: "breaking",
  };
}

describe("the changelog in partners' words", () => {
  const names = operationNames(loadDocument());

  it("names each operation by its id and path, those needing action first, with the check in a comment for the team", () => {
    const entry = partnerChangelog(
      reportOf([
        change({
          check: "response-optional-field-removed",
          level: "info",
          location: "#/components/schemas/Card .brand",
          message: "optional field `brand` removed",
          usedBy: ["GET /v1/cards"],
        }),
        change({
          check: "request-parameter-added-required",
          level: "error",
          location: "GET /v1/cards query status",
          message: "required `query status` added",
        }),
        change({
          check: "operation-id-changed",
          level: "warning",
          location: "GET /v1/card-bins",
          message: 'operationId `"listCardBins"` → `"listBins"`',
        }),
        change({
          check: "response-field-added-optional",
          level: "info",
          location: "webhook company.kyc_status_changed POST request body",
          message: "optional field `reason` added",
        }),
        change({
          check: "response-documentation-changed",
          level: "info",
          location: "#/info",
          message: "description changed",
          documentation: true,
        }),
      ]),
      "2.0.0",
      "2026-11-26",
      names,
    );
    const sections = [...entry.matchAll(/^### (.+)$/gm)].map((match) => match[1]);
    expect(sections).toEqual([
      "`listCards` (GET /v1/cards)",
      "`listCardBins` (GET /v1/card-bins)",
      "Webhook `company.kyc_status_changed`",
      "The whole API",
    ]);
    expect(entry).toMatch(/^## 2\.0\.0 \(2026-11-26\)\n\n\*\*1 change needs action\*\* before you upgrade to 2\.0\.0/);
    expect(entry).toContain(
      "- **Action needed:** The query parameter `status` is new and must be sent. Update the requests your code sends before you upgrade: the old ones are refused.\n" +
        "  <!-- request-parameter-added-required at GET /v1/cards query status -->",
    );
    expect(entry).toContain("- **No action needed:** The field `brand` is no longer sent. Nothing to do.");
    expect(entry).toContain("- **No action needed:** The field `reason` is new: answers may carry it. Nothing to do.");
    // In the listCards section, the action comes before the field that merely went away.
    const listCards = entry.slice(entry.indexOf("### `listCards`"), entry.indexOf("### `listCardBins`"));
    expect(listCards.indexOf("Action needed")).toBeLessThan(listCards.indexOf("No action needed"));
    expect(entry).toContain(
      "- **Check your code:** Its name changes (the name the typed client's helpers use for it). If your code names it",
    );
    expect(entry).toContain("<!-- response-documentation-changed at #/info -->");
  });

  it("says so when nothing changed, and maps each level to one action", () => {
    expect(partnerChangelog(reportOf([]), "1.0.1", "2026-11-26", names)).toBe(
      "## 1.0.1 (2026-11-26)\n\nNo changes to the API contract: nothing to do.\n",
    );
    const base = { location: "x", message: "m" };
    expect(actionFor(change({ ...base, check: "a", level: "error" }))).toBe("must");
    expect(actionFor(change({ ...base, check: "a", level: "warning" }))).toBe("check");
    expect(actionFor(change({ ...base, check: "a", level: "info" }))).toBe("none");
    expect(actionFor(change({ ...base, check: "a", level: "info", documentation: true }))).toBe("documentation");
  });
});
