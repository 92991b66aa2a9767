/** One version story: the package, its lock, the devkit's peer dependency and the contract carry one number. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { contractVersionOf } from "../../scripts/lib/release/versions.ts";

const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");

describe("one version", () => {
  it("package.json, package-lock.json, the devkit's peer dependency and the contract's info.version agree", () => {
    const version = JSON.parse(read("package.json")).version as string;
    const lock = JSON.parse(read("package-lock.json"));
    const devkit = JSON.parse(read("devkit/package.json"));
    expect({
      lock: lock.version,
      lockRoot: lock.packages[""].version,
      peer: devkit.peerDependencies["partner-api-client"],
      contract: contractVersionOf(read("openapi/openapi.yaml")),
      bundle: JSON.parse(read("generated/openapi.json")).info.version,
    }).toEqual({ lock: version, lockRoot: version, peer: version, contract: version, bundle: version });
  });

  it("the release baseline states the version it was released as (its copy under release/versions/)", () => {
    const baseline = JSON.parse(read("release/openapi.json"));
    expect(read(`release/versions/${baseline.info.version}.json`)).toBe(read("release/openapi.json"));
  });
});
