/** CI installs what the samples test runs: .ci/run's list of sample packages is the one scripts/lib/docs lists. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SAMPLE_RUNTIMES } from "../../scripts/lib/docs/sample-runtimes.ts";
import { SAMPLE_LANGUAGES } from "../../scripts/lib/docs/samples.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

describe("the sample runtimes in CI", () => {
  it(".ci/run installs exactly the Debian packages of every runtime the samples test runs", () => {
    const script = readFileSync(path.join(repoRoot, ".ci", "run"), "utf8");
    const listed = /^sample_packages="([^"]*)"$/m.exec(script)?.[1];
    expect(listed, ".ci/run has a sample_packages line").toBeDefined();
    const needed = new Set(SAMPLE_RUNTIMES.flatMap((runtime) => runtime.debianPackages));
    expect(new Set(listed!.split(/\s+/).filter(Boolean))).toEqual(needed);
    // The block runs before the tests, and fails the run when apt-get cannot install them.
    expect(script.indexOf("sample_packages=")).toBeLessThan(script.indexOf("npm run test:all"));
    expect(script).toContain('echo "error: apt-get could not install the sample runtimes');
  });

  it("every runtime runs a language the docs show, each language once", () => {
    const labels = SAMPLE_RUNTIMES.map((runtime) => runtime.label);
    expect(new Set(labels).size).toBe(labels.length);
    for (const label of labels) expect(SAMPLE_LANGUAGES.map((language) => language.label)).toContain(label);
  });
});
