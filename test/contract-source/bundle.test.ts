import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { JobFailure } from "partner-api-devkit/cli";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { bundleCommand } from "../../scripts/bundle.ts";
import { bundleContract, GENERATED_HEADER, staleBundleFiles } from "../../scripts/lib/bundle.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { listOperations, loadDocument } from "../contract/support/contract.ts";
import { runInProcess, runScript } from "../helpers/run.ts";

const scratch = mkdtempSync(path.join(os.tmpdir(), "bundle-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the committed bundle", () => {
  // One bundle of openapi/ as it is today, for the first two tests.
  const today = bundleContract();

  it("is what `npm run bundle` writes from openapi/ today (not stale)", async () => {
    expect(await staleBundleFiles(await today), "run `npm run bundle` and commit generated/").toEqual([]);
  });

  it("says it is generated, and its YAML and JSON forms agree", async () => {
    const output = await today;
    expect(output.yaml.startsWith(GENERATED_HEADER)).toBe(true);
    expect(parse(output.yaml)).toEqual(JSON.parse(output.json));
  });

  it("is seen as stale when a contract file changes", async () => {
    const copy = path.join(scratch, "openapi");
    cpSync(path.join(repoRoot, "openapi"), copy, { recursive: true });
    const file = path.join(copy, "components/schemas/cards/CardBin.yaml");
    writeFileSync(file, "type: object\nproperties:\n  bin:\n    type: string\n");
    expect(await staleBundleFiles(await bundleContract(path.join(copy, "openapi.yaml")))).toEqual([
      "generated/openapi.yaml",
      "generated/openapi.json",
    ]);
  });

  it("cannot be made from a contract with a broken reference, and the error names the file", async () => {
    const copy = path.join(scratch, "broken");
    cpSync(path.join(repoRoot, "openapi"), copy, { recursive: true });
    writeFileSync(
      path.join(copy, "paths/cards/v1_card-bins.yaml"),
      "get:\n  operationId: listCardBins\n  responses:\n    '200':\n      $ref: ../../components/responses/Missing.yaml\n",
    );
    await expect(bundleContract(path.join(copy, "openapi.yaml"))).rejects.toThrow(/v1_card-bins\.yaml/);
  });

  it("cannot be made from a file that is not YAML: a verdict naming the file and line, not a crash", async () => {
    const copy = path.join(scratch, "not-yaml");
    cpSync(path.join(repoRoot, "openapi"), copy, { recursive: true });
    writeFileSync(path.join(copy, "openapi.yaml"), "openapi: 3.1.0\ninfo: [\n");
    const failure = await bundleContract(path.join(copy, "openapi.yaml")).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(JobFailure);
    // The file named from the contract's folder (as the other contract errors name it), then its line and column.
    expect((failure as Error).message).toMatch(/^cannot bundle \S*not-yaml\/openapi\.yaml: .*"openapi\.yaml" \(3:1\)$/);
  });
});

describe("npm run bundle", () => {
  it("--check reports an up-to-date bundle with its counts and time", async () => {
    const run = await runInProcess(bundleCommand, ["--check"]);
    expect(run.code, run.stderr).toBe(0);
    // The counts are the bundle's, read here rather than typed: a new operation changes them.
    const bundle = loadDocument();
    const counts = `${listOperations(bundle).length} operations, ${Object.keys(bundle.webhooks).length} webhooks`;
    expect(run.stderr).toMatch(new RegExp(`bundle is up to date: ${counts}, \\d+ schemas in \\d+(\\.\\d+)? m?s`));
  });

  it("rejects an unknown argument by name, with exit code 2 as a process", { tags: ["slow"] }, () => {
    const run = runScript("bundle.ts", ["--chekc"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("Unknown option '--chekc'");
    expect(run.stderr).toContain("npm run bundle -- --help");
  });
});
