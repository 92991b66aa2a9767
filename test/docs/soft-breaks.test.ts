/**
 * Search snippets dropped a space where a description wraps ("read a\ncard holder" showed as "acard holder"): the
 * rendered copy has one line per paragraph (scripts/lib/docs/soft-breaks.ts). The browser test searches the built
 * page in Chromium.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { joinSoftBreaks, withJoinedDescriptions } from "../../scripts/lib/docs/soft-breaks.ts";
import { bundleJsonPath } from "../../scripts/lib/paths.ts";

describe("joinSoftBreaks()", () => {
  it("joins a paragraph's lines and a list item's wrapped lines with one space", () => {
    expect(joinSoftBreaks("read a\ncard holder, list BINs")).toBe("read a card holder, list BINs");
    expect(joinSoftBreaks("1. **Card issuing**: read a\n   card holder.\n2. Next\n   item.")).toBe(
      "1. **Card issuing**: read a card holder.\n2. Next item.",
    );
    expect(joinSoftBreaks("One.\n\nTwo\nlines.")).toBe("One.\n\nTwo lines.");
  });

  it("leaves code, headings, tables, quotes, lists, HTML and hard breaks as they are", () => {
    const kept = [
      "```ts\nconst a = 1;\nconst b = 2;\n```",
      "Text\n- item\n- item",
      "## Heading\nText",
      "| a | b |\n|---|---|\n| 1 | 2 |",
      "Text\n> quoted",
      "Line with a hard break  \nnext",
      "Line with a backslash\\\nnext",
      "<div>\nhtml\n</div>",
      "Text:\n\n    indented code\n    more code",
      "Title\n=====",
    ];
    for (const text of kept) expect(joinSoftBreaks(text), text).toBe(text);
  });

  it("gives every description of the contract one line per paragraph, and leaves examples alone", () => {
    const document = JSON.parse(readFileSync(bundleJsonPath, "utf8"));
    const joined = withJoinedDescriptions(document);
    expect(document.info.description).toMatch(/read a\n\s*card holder/);
    expect(joined.info.description).toContain("read a card holder");
    const example = { value: { description: "two\nlines" } };
    expect(withJoinedDescriptions({ description: "a\nb", examples: { one: example } })).toEqual({
      description: "a b",
      examples: { one: example },
    });
    // Only whitespace changes: the same words, in the same order.
    const words = (value: unknown) =>
      JSON.stringify(value)
        .replace(/\\n|\s+/g, " ")
        .split(" ")
        .filter(Boolean);
    expect(words(joined)).toEqual(words(document));
  });

  it("keeps a __proto__ key as a key", () => {
    const document = JSON.parse('{"properties": {"__proto__": {"description": "a\\nb"}}}');
    const joined = withJoinedDescriptions(document);
    expect(Object.keys(joined.properties)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(joined.properties)).toBe(Object.prototype);
  });
});
