/**
 * The changelog read as text, on every change the oasdiff parity corpus makes (446 pairs of base and revision): in
 * partners' words, with no schema keyword, no JSON and no pointer, each entry saying whether to act and how, under
 * one summary that agrees with the entries.
 */
import { describe, expect, it } from "vitest";
import { diffContracts } from "../../scripts/lib/diff/report.ts";
import { ACTION_TITLES, actionFor, operationNames, partnerChangelog } from "../../scripts/lib/release/changelog.ts";
import { partnerSentence } from "../../scripts/lib/release/partner-words.ts";
import { PAIRS } from "../diff/oasdiff-corpus/index.ts";

/** What partners never read: schema keywords, JSON, JSON pointers, the gate's check ids. */
const SCHEMA_WORDS =
  /\b(allOf|anyOf|oneOf|discriminator|dependentSchemas|dependentRequired|patternProperties|additionalProperties|unevaluatedProperties|prefixItems|minLength|maxLength|minimum|maximum|exclusiveMinimum|exclusiveMaximum|minItems|maxItems|minProperties|maxProperties|multipleOf|uniqueItems|readOnly|writeOnly|nullable|enum|const|pattern|operationId|requestBody|schema|\$ref|x-[a-z][a-z-]*)\b|`not`|#\/|\b(request|response)-[a-z]+-[a-z-]+\b/;
const JSON_MARKS = /[{}[\]]|":|"\w+"/;

/** The partner-facing text of an entry: its comments (for the API team) left out. */
const partnerText = (entry: string) => entry.replace(/<!--[\s\S]*?-->/g, "");

const entries = PAIRS.map((pair) => {
  const report = diffContracts({ document: pair.base, label: "base" }, { document: pair.revision, label: "revision" });
  const text = partnerChangelog(report, "9.0.0", "2026-11-28", operationNames(pair.base, pair.revision));
  return { test: pair.test, report, text };
});

describe("the changelog of every change of the parity corpus, read as text", () => {
  it("covers many kinds of change", () => {
    const kinds = new Set(entries.flatMap(({ report }) => report.changes.map((change) => change.kind)));
    expect(kinds.size).toBeGreaterThan(60);
  });

  it("has no schema keyword, no JSON, no pointer and no check id where partners read", () => {
    const offending = entries.flatMap(({ test, text }) =>
      partnerText(text)
        .split("\n")
        .filter((line) => line.startsWith("- ") || (line !== "" && !line.startsWith("#")))
        .filter((line) => SCHEMA_WORDS.test(line) || JSON_MARKS.test(line))
        .map((line) => `${test}: ${line}`),
    );
    expect(offending).toEqual([]);
  });

  it("says for each change what changed, then whether to act and how, as sentences", () => {
    const titles = Object.values(ACTION_TITLES).join("|");
    const bullet = new RegExp(`^- \\*\\*(${titles}):\\*\\* [A-Z\`][^\\n]*[^.]\\. [A-Z][^\\n]*\\.$`);
    const bad = entries.flatMap(({ test, text }) =>
      partnerText(text)
        .split("\n")
        .filter((line) => line.startsWith("- "))
        .filter((line) => !bullet.test(line) || /undefined|\[object| {2}/.test(line))
        .map((line) => `${test}: ${line}`),
    );
    expect(bad).toEqual([]);
  });

  it("has one summary that agrees with its entries", () => {
    for (const { test, report, text } of entries) {
      if (report.changes.length === 0) continue;
      const summary = text.split("\n")[2]!;
      const count = (action: ReturnType<typeof actionFor>) =>
        report.changes.filter((change) => actionFor(change) === action).length;
      const [must, check] = [count("must"), count("check")];
      if (must > 0) expect(summary, test).toMatch(new RegExp(`^\\*\\*${must} changes? needs? action\\*\\*`));
      else if (check > 0)
        expect(summary, test).toMatch(new RegExp(`^No change needs action .* \\*\\*${check} changes? to check\\*\\*`));
      else expect(summary, test).toMatch(/^Nothing to do before you upgrade/);
      // Never "nothing to do" beside something to act on or check.
      if (must + check > 0) expect(summary, test).not.toMatch(/^Nothing to do/);
    }
  });

  it("reads the direction: what partners send and what they read are told apart", () => {
    const change = {
      kind: "optional-field-removed",
      location: "#/components/schemas/Card .brand",
      message: "",
      documentation: false,
    };
    expect(partnerSentence({ ...change, flow: "toPartner" })).toBe("The field `brand` is no longer sent");
    expect(partnerSentence({ ...change, flow: "toService" })).toBe(
      "The field `brand` is no longer accepted in requests",
    );
  });
});
