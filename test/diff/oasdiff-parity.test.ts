/**
 * oasdiff parity (issue 19 item 2): on the corpus in oasdiff-corpus.ts, the default profile gives this gate's
 * verdicts, `--profile oasdiff` gives oasdiff's wherever the difference is one of levels, and every area has
 * pairs in both directions.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { differencesFromOasdiff } from "../../scripts/lib/diff/registry.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { AREAS, CASES, run, verdict } from "./oasdiff-corpus.ts";

describe("the oasdiff parity corpus", () => {
  it.each(CASES.map((testCase) => [testCase.name, testCase] as const))("%s", (_name, testCase) => {
    const ours = run(testCase);
    expect(verdict(ours), JSON.stringify(ours, null, 1)).toBe(testCase.ours);
    const profiled = run(testCase, "oasdiff");
    const expected = testCase.deliberate ? testCase.ours : testCase.oasdiff === "none" ? "info" : testCase.oasdiff;
    // oasdiff reporting nothing and this gate reporting information both pass a gate at any level but info.
    expect([expected, testCase.oasdiff]).toContain(verdict(profiled));
  });

  it.each(AREAS.filter((area) => area !== "other levels"))("has pairs in both directions: %s", (area) => {
    const directions = new Set(CASES.filter((c) => c.area === area).map((c) => c.direction));
    expect([...directions].sort()).toEqual(["request", "response"]);
  });

  it("never reports a response check for a change only a request reads, nor the reverse", () => {
    for (const testCase of CASES.filter((c) => c.area === "shared schemas" || c.area === "patterns")) {
      const ids = run(testCase).map((change) => change.check);
      if (testCase.name.includes("shared")) continue; // a shared schema is read both ways
      const other = testCase.direction === "request" ? "response-" : "request-";
      expect(
        ids.filter((id) => id.startsWith(other)),
        testCase.name,
      ).toEqual([]);
    }
  });

  it("docs/api-team.md lists every check whose default level differs from oasdiff's, with both levels", () => {
    const doc = readFileSync(path.join(repoRoot, "docs", "api-team.md"), "utf8");
    const table = doc.slice(doc.indexOf("### Level profiles"), doc.indexOf("### Config: levels"));
    const differing = differencesFromOasdiff();
    expect(differing.length).toBeGreaterThan(0);
    for (const row of differing)
      expect(table).toMatch(new RegExp(`\`${row.id}\`[^\n]*\\| ${row.level} \\| ${row.oasdiff!.level}`));
  });
});
