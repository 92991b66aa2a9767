/**
 * The rendered reference speaks to partners: its texts say what a partner can rely on ("not
 * specified", "may be absent"), never what a source document shows. Notes on fidelity to the source
 * live in docs/api-team.md.
 */
import { describe, expect, it } from "vitest";
import { loadDocument } from "../contract/support/contract.ts";
import { renderedTexts, SOURCE_TALK } from "./partner-language.ts";

describe("the contract's texts speak to partners", () => {
  const texts = renderedTexts(loadDocument());

  it("reads every description, summary and title of the bundle", () => {
    // 15 operations and 6 webhooks each have a summary and a description: far more than 100 texts in all.
    expect(texts.length).toBeGreaterThan(100);
  });

  it("no description, summary or title mentions the source", () => {
    expect(texts.filter(([, text]) => SOURCE_TALK.test(text)).map(([pointer]) => pointer)).toEqual([]);
  });

  it("the check finds such a text wherever it is", () => {
    const document = {
      info: { description: "Fine." },
      paths: { "/a/b": { get: { responses: { "200": { description: "Not shown in the source." } } } } },
      components: {
        schemas: { X: { title: "X", properties: { description: { type: "string", description: "ok" } } } },
      },
    };
    const found = renderedTexts(document).filter(([, text]) => SOURCE_TALK.test(text));
    expect(found).toEqual([["#/paths/~1a~1b/get/responses/200/description", "Not shown in the source."]]);
  });

  it("says what partners can rely on where the contract stays open", () => {
    const all = texts.map(([, text]) => text).join("\n");
    expect(all).toMatch(/not specified/);
    expect(all).toMatch(/may be absent/);
  });
});
