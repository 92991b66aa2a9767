/**
 * The docs build beyond the reference page: the "Sandbox control" page for the sandbox's control API,
 * linked from the reference, and the screenshots' skip when there is no Chromium. Without a browser:
 * the browser test looks at the rendered pages and the PNGs.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildDocs,
  type DocsBuildResult,
  findExternalLoads,
  SANDBOX_PAGE,
  SANDBOX_SECTION_TITLE,
} from "../../scripts/lib/docs/build.ts";
import { takeScreenshots } from "../../scripts/lib/docs/screenshots.ts";
import { sandboxBundleJsonPath } from "../../scripts/lib/paths.ts";
import { renderedTexts, SOURCE_TALK } from "../contract-source/partner-language.ts";

const definitionOf = (html: string) => JSON.parse(html.match(/const __redoc_definition = (.*);\n/)![1]!);

describe.skipIf(!existsSync(sandboxBundleJsonPath))("the Sandbox control page", () => {
  let out: string;
  let built: DocsBuildResult;
  let progress: string[];
  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), "docs-pages-test-"));
    progress = [];
    built = await buildDocs({ outDir: out, screenshots: false, onProgress: (line) => progress.push(line) });
    // Five pages rendered by Redocly: minutes on a loaded 2-core machine.
  }, 600_000);
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it("is written beside the reference with the control contract, and said so", () => {
    expect(built.sandboxFiles).toEqual([SANDBOX_PAGE, "sandbox.yaml", "sandbox.json"]);
    expect(progress.some((line) => line.includes(`${SANDBOX_PAGE} (${SANDBOX_SECTION_TITLE})`))).toBe(true);
    // Screenshots were turned off: none taken, none announced.
    expect(built.screenshots).toEqual([]);
    expect(progress.some((line) => line.startsWith("wrote screenshots"))).toBe(false);
  });

  it("documents every control operation under the title Sandbox control, self-contained", async () => {
    const html = await readFile(path.join(out, SANDBOX_PAGE), "utf8");
    expect(findExternalLoads(html)).toEqual([]);
    expect(html).toContain("Content-Security-Policy");
    const definition = definitionOf(html);
    const control = JSON.parse(await readFile(sandboxBundleJsonPath, "utf8"));
    expect(definition.info.title).toBe(SANDBOX_SECTION_TITLE);
    expect(Object.keys(definition.paths)).toEqual(Object.keys(control.paths));
    expect(definition.info.description).toContain("](index.html)");
    // It speaks to partners too.
    expect(renderedTexts(definition).filter(([, text]) => SOURCE_TALK.test(text))).toEqual([]);
    expect(await readFile(path.join(out, "sandbox.json"), "utf8")).toBe(await readFile(sandboxBundleJsonPath, "utf8"));
  });

  it("is linked from the reference, in a section of its own", async () => {
    const definition = definitionOf(await readFile(path.join(out, "index.html"), "utf8"));
    expect(definition.info.description).toMatch(
      new RegExp(`^## ${SANDBOX_SECTION_TITLE}\\n[\\s\\S]*\\]\\(${SANDBOX_PAGE.replace(".", "\\.")}\\)`, "m"),
    );
    // The partner contract itself stays as it is: the control API's paths are not mixed into the reference.
    expect(Object.keys(definition.paths).some((p) => p.startsWith("/_sandbox"))).toBe(false);
  });

  it("writes Errors, Changelog, each release's reference and Try it, self-contained, each with the bar", async () => {
    for (const file of ["index.html", "errors.html", "changelog.html", "versions/0.1.0/index.html", "try.html"]) {
      const html = await readFile(path.join(out, file), "utf8");
      expect(findExternalLoads(html), file).toEqual([]);
      expect(html, file).toContain('<nav class="docs-nav" aria-label="Documentation">');
      for (const link of ["index.html", "try.html", "errors.html", "changelog.html", SANDBOX_PAGE])
        expect(html, `${file} links ${link}`).toContain(
          `href="${file.startsWith("versions/") ? "../../" : ""}${link}"`,
        );
      expect(html, file).not.toContain("<!--docs-nav-->");
    }
    const changelog = definitionOf(await readFile(path.join(out, "changelog.html"), "utf8"));
    expect(changelog.info.description).toContain("## 0.1.0 (2026-11-22)");
    const released = definitionOf(await readFile(path.join(out, "versions/0.1.0/index.html"), "utf8"));
    expect(released.info.title).toBe("Reference");
    // One version for the package and the contract: the release's contract states its own number.
    expect(released.info.description).toMatch(
      /^\*\*[^*\n]+\*\*\n\n[^\n]+\n\n> This is the reference of release 0\.1\.0\.\n/,
    );
    const tryIt = await readFile(path.join(out, "try.html"), "utf8");
    expect(tryIt).toContain("script-src 'self'");
    expect(tryIt).not.toMatch(/<script>(?!<\/script>)/);
    expect((await readFile(path.join(out, "scalar/standalone.js"))).length).toBeGreaterThan(1_000_000);
  });
});

describe("screenshots without Chromium", () => {
  it("are skipped with the reason, and nothing is written", async () => {
    const saved = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = path.join(os.tmpdir(), "no-such-chromium");
    try {
      const result = await takeScreenshots(path.join(os.tmpdir(), "index.html"), "Title");
      expect(result.taken).toEqual([]);
      expect(result.skipped).toMatch(/^no Chromium at .*no-such-chromium \(apt-get install -y chromium/);
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
  });
});
