/** The size benchmark's runtime package list: read from the lockfile as npm installs it, not from node_modules. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimePackages } from "../../bench/size.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

async function withLock(packages: object): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "partner-size-lock-"));
  scratch.push(dir);
  await writeFile(path.join(dir, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages }));
  return dir;
}

describe("runtimePackages", () => {
  it("is openapi-fetch and what it needs for this repository's client, no devDependency", () => {
    const packages = runtimePackages(repoRoot);
    expect(packages.some((p) => p.startsWith("openapi-fetch@"))).toBe(true);
    expect(packages.some((p) => /^(vitest|typescript|@redocly\/cli)@/.test(p))).toBe(false);
    expect(packages.length).toBeLessThan(5);
  });

  it("resolves nested copies first, follows peers and optional dependencies, skips devDependencies", async () => {
    const dir = await withLock({
      "": { name: "x", dependencies: { a: "1" }, devDependencies: { dev: "1" } },
      "node_modules/a": {
        version: "1.0.0",
        dependencies: { b: "2" },
        peerDependencies: { p: "1", q: "1" },
        peerDependenciesMeta: { q: { optional: true } },
      },
      "node_modules/a/node_modules/b": { version: "2.0.0", optionalDependencies: { gone: "1" } },
      "node_modules/b": { version: "1.0.0" },
      "node_modules/p": { version: "3.0.0" },
      "node_modules/q": { version: "4.0.0" },
      "node_modules/dev": { version: "9.0.0" },
    });
    expect(runtimePackages(dir)).toEqual(["a@1.0.0", "b@2.0.0", "p@3.0.0"]);
  });

  it("names a dependency the lockfile lacks, and a missing lockfile", async () => {
    const dir = await withLock({ "": { dependencies: { a: "1" } } });
    expect(() => runtimePackages(dir)).toThrow(/a \(needed by the package\) is not in .*package-lock\.json/);
    expect(() => runtimePackages(path.join(dir, "nowhere"))).toThrow(/package-lock\.json is missing/);
  });
});
