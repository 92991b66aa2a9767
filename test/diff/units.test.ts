/** The diff library's smaller public functions: acknowledgement, loading, reporting, merging. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  acknowledge,
  isMajorBump,
  majorOf,
  parseAllowlist,
  readAllowlist,
} from "../../scripts/lib/diff/acknowledge.ts";
import { ChangeSink, mergeChanges } from "../../scripts/lib/diff/changes.ts";
import { DiffInputError, loadBundledFile } from "../../scripts/lib/diff/load.ts";
import { diffContracts, formatMarkdown, formatText, summarise } from "../../scripts/lib/diff/report.ts";
import { classify } from "../../scripts/lib/diff/rules.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

const fixture = (name: string) => parse(readFileSync(path.join(repoRoot, "test", "diff", "fixtures", name), "utf8"));
const scratch = mkdtempSync(path.join(tmpdir(), "diff-units-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("rules", () => {
  it("reverses the class of direction-dependent kinds", () => {
    expect(classify("enum-value-added", "toService")).toBe("compatible");
    expect(classify("enum-value-added", "toPartner")).toBe("breaking");
    expect(classify("field-added-required", "toService")).toBe("breaking");
    expect(classify("field-added-required", "toPartner")).toBe("compatible");
  });
});

describe("mergeChanges", () => {
  it("merges one component change reached from two operations into one entry with both users", () => {
    const sink = new ChangeSink();
    const one = new ChangeSink();
    one.emit("field-removed", "toPartner", "#/components/schemas/A .x", "field `x` removed");
    sink.addFrom(one.changes, "GET /a");
    sink.addFrom(one.changes, "GET /b");
    const merged = mergeChanges(sink.changes);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.usedBy).toEqual(["GET /a", "GET /b"]);
  });
});

describe("acknowledgement", () => {
  it("reads major numbers and detects a major bump", () => {
    expect(majorOf("2.3.4")).toBe(2);
    expect(majorOf("v10")).toBe(10);
    expect(majorOf("next")).toBeUndefined();
    expect(isMajorBump("1.9.0", "2.0.0")).toBe(true);
    expect(isMajorBump("1.0.0", "1.9.0")).toBe(false);
    expect(isMajorBump("unversioned", "2.0.0")).toBe(false);
  });

  it("parses an allowlist and rejects entries without change or reason", () => {
    expect(parseAllowlist("acknowledged: []\n", "a.yaml")).toEqual([]);
    expect(parseAllowlist('acknowledged:\n  - change: "x y"\n    reason: " because "\n', "a.yaml")).toEqual([
      { change: "x y", reason: "because" },
    ]);
    expect(() => parseAllowlist("acknowledged:\n  - reason: r\n", "a.yaml")).toThrow(
      /allowlist "a.yaml" entry 1 has no `change`/,
    );
    expect(() => parseAllowlist("- change: x\n", "a.yaml")).toThrow(/must be a mapping with an `acknowledged:` list/);
    expect(() => parseAllowlist("acknowledged: [\n", "a.yaml")).toThrow(DiffInputError);
  });

  it("treats a missing default allowlist as empty but a missing explicit one as an error", async () => {
    const missing = path.join(scratch, "nope.yaml");
    await expect(readAllowlist(missing, "nope.yaml")).resolves.toEqual([]);
    await expect(readAllowlist(missing, "nope.yaml", true)).rejects.toThrow(
      /allowlist "nope.yaml" cannot be read: ENOENT/,
    );
  });

  it("acknowledges only the listed breaking change and reports unused entries", () => {
    const sink = new ChangeSink();
    sink.emit("field-removed", "toPartner", "L1", "m");
    sink.emit("path-removed", "toPartner", "L2", "m");
    sink.emit("field-added-optional", "toPartner", "L3", "m");
    const { changes, unused } = acknowledge(sink.changes, "1.0.0", "1.1.0", [
      { change: "field-removed L1", reason: "r1" },
      { change: "field-removed gone", reason: "r2" },
    ]);
    expect(changes.map((c) => c.acknowledged)).toEqual(["allowlist: r1", undefined, undefined]);
    expect(unused.map((e) => e.change)).toEqual(["field-removed gone"]);
  });
});

describe("loadBundledFile", () => {
  it("loads YAML and JSON bundles", async () => {
    const json = path.join(scratch, "b.json");
    writeFileSync(json, JSON.stringify(fixture("base.yaml")));
    const loaded = await loadBundledFile(json, "--base");
    expect(loaded.label).toBe("file b.json");
    expect(summarise(loaded.document, loaded.label)).toEqual({
      label: "file b.json",
      version: "1.0.0",
      operations: 2,
      webhooks: 1,
    });
  });

  it("rejects a document with references to other files", async () => {
    const split = path.join(scratch, "split.yaml");
    writeFileSync(split, "openapi: 3.1.0\npaths:\n  /a:\n    $ref: paths/a.yaml\n");
    await expect(loadBundledFile(split, "--head")).rejects.toThrow(/--head "split.yaml" has references to other files/);
  });
});

describe("report", () => {
  const report = diffContracts(
    { document: fixture("base.yaml"), label: "base" },
    { document: fixture("head-remove-response-field.yaml"), label: "head" },
  );

  it("lists unacknowledged breaking changes", () => {
    expect(report.unacknowledged.map((c) => c.id)).toEqual(["field-removed #/components/schemas/Widget .colour"]);
  });

  it("formats the readable list grouped by class with ids and users", () => {
    const text = formatText(report);
    expect(text).toContain(
      "Breaking (1)\n  - [NOT ACKNOWLEDGED] #/components/schemas/Widget .colour: field `colour` removed\n      used by: GET /widgets/{widgetId}; POST /widgets; webhook widget.created POST",
    );
  });

  it("formats a Markdown changelog section", () => {
    expect(formatMarkdown(report)).toBe(
      "## API changes: 1.0.0 → 1.0.0\n\n### Breaking\n\n" +
        "- `#/components/schemas/Widget .colour`: field `colour` removed (affects `GET /widgets/{widgetId}`, `POST /widgets`, `webhook widget.created POST`).\n",
    );
  });
});
