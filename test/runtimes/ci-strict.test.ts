/**
 * Under CI a suite that needs a runtime or a browser fails when it is missing, instead of skipping: Chromium
 * (scripts/lib/chromium.ts, which every browser suite asks) and the runtime matrix (scripts/lib/runtimes.ts).
 */
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hasChromium } from "../../scripts/lib/chromium.ts";
import { matrixForTests, underCI } from "../../scripts/lib/runtimes.ts";

const nowhere = path.join(os.tmpdir(), "partner-api-no-such-folder", "chromium");

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("under CI nothing that is missing is skipped", () => {
  it("reads CI as GitHub Actions and .ci/run set it", () => {
    for (const [value, expected] of [
      ["true", true],
      ["1", true],
      ["", false],
      ["false", false],
      ["0", false],
    ] as const) {
      vi.stubEnv("CI", value);
      expect(underCI(), JSON.stringify(value)).toBe(expected);
    }
  });

  it("a missing Chromium is false outside CI and an error under CI", () => {
    vi.stubEnv("CHROMIUM_PATH", nowhere);
    vi.stubEnv("CI", "");
    expect(hasChromium()).toBe(false);
    vi.stubEnv("CI", "true");
    expect(() => hasChromium()).toThrow(/no Chromium at .*chromium, and CI is set: a browser check may not be skipped/);
  });

  it("a missing runtime matrix is undefined outside CI and an error under CI", async () => {
    vi.stubEnv("PARTNER_API_RUNTIMES_DIR", path.dirname(nowhere));
    vi.stubEnv("CI", "");
    expect(await matrixForTests("a suite")).toBeUndefined();
    vi.stubEnv("CI", "true");
    await expect(matrixForTests("a suite")).rejects.toThrow(
      /a suite needs the runtime matrix, which is not installed in .*; under CI a suite may not skip/,
    );
  });
});
