/**
 * The documents the Errors and Changelog pages (and the reference) are rendered from: a short H1 with the API's
 * full title under it, and Changelog headings that name their event or operation in Redoc's sidebar.
 */
import { describe, expect, it } from "vitest";
import { changelogDocument, withShortHeading } from "../../scripts/lib/docs/pages.ts";

describe("withShortHeading", () => {
  const long = "Partner Card, Company Onboarding, Payment Route and Transaction API";
  it("makes the H1 the page's name and opens the description with the full title, then the summary", () => {
    const document = { info: { title: long, version: "1.0.0", summary: "Cards and more.", description: "Intro." } };
    const info = withShortHeading(document, "Reference").info as Record<string, unknown>;
    expect(info).toEqual({
      title: "Reference",
      version: "1.0.0",
      description: `**${long}**\n\nCards and more.\n\nIntro.`,
    });
    // The document itself is not changed, and a page already named so is left as it is.
    expect(document.info.title).toBe(long);
    expect(withShortHeading({ info: { title: "Errors" } }, "Errors")).toEqual({ info: { title: "Errors" } });
  });
});

describe("changelogDocument", () => {
  it("writes headings without code spans, which Redoc's sidebar drops (six entries read 'Webhook')", () => {
    const markdown = [
      "# Changelog",
      "",
      "## 1.1.0 (2026-12-01)",
      "",
      "### Webhook `company.kyc_status_changed`",
      "",
      "- **Check:** `kycStatus` gained a value.",
      "",
      "### `createCard` (POST /v1/cards)",
      "",
    ].join("\n");
    const description = (changelogDocument(markdown, "Changelog", "1.1.0").info as { description: string }).description;
    expect(description).toContain("### Webhook company.kyc_status_changed\n");
    expect(description).toContain("### createCard (POST /v1/cards)\n");
    // Code in the text stays code.
    expect(description).toContain("- **Check:** `kycStatus` gained a value.");
    expect(description).not.toContain("# Changelog");
  });
});
