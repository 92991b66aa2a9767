/**
 * `npm run generate`: bundles the contract when the bundle is stale, then writes generated/schema.d.ts
 * (openapi-typescript), generated/contract.ts (the runtime facts the client and the webhook kit need),
 * devkit/generated/sandbox.d.ts (the sandbox control API's types, the devkit's own) and generated/examples.ts and
 * devkit/generated/sandbox-examples.ts (every example of each contract as a typed const, which tsc compiles).
 * `--check` writes nothing and exits 1 when a generated file is stale.
 */
import { writeFile } from "node:fs/promises";
import { defineCommand, isEntryPoint, JobFailure, type JsonObject, main } from "partner-api-devkit/cli";
import { bundleContract, bundleSandboxContract, ensureBundle, readOrEmpty, staleBundleFiles } from "./lib/bundle.ts";
import {
  contractModulePath,
  examplesModulePath,
  generateContractModule,
  generateExamplesModule,
  generateSandboxTypes,
  generateSchemaTypes,
  sandboxExamplesModulePath,
  sandboxTypesPath,
  schemaTypesPath,
} from "./lib/generate.ts";
import { rel } from "./lib/paths.ts";

export const generateCommand = defineCommand({
  name: "npm run generate --",
  summary: "write generated/schema.d.ts, contract.ts, sandbox.d.ts and the typed examples from the contracts",
  usage: `Usage: npm run generate [-- --check]

Bundles the contract first when generated/openapi.{yaml,json} is stale.

Options:
  --check   write nothing; fail when a generated file (or the bundle) differs from a fresh one

Exit codes: 0 written or up to date, 1 stale (--check) or the contract does not bundle, 2 bad input, 3 a bug.`,
  options: { check: { type: "boolean" } },
  async run({ values }) {
    const check = values.check === true;
    const bundle = check ? await bundleContract() : (await ensureBundle()).output;
    const sandbox = (await bundleSandboxContract()).document;
    const outputs = new Map<string, string>([
      [schemaTypesPath, await generateSchemaTypes(bundle.document)],
      [sandboxTypesPath, await generateSandboxTypes(sandbox)],
      [contractModulePath, generateContractModule(bundle.document)],
      [
        examplesModulePath,
        generateExamplesModule(bundle.document as JsonObject, "./schema.js", "generated/openapi.json"),
      ],
      [
        sandboxExamplesModulePath,
        generateExamplesModule(sandbox as JsonObject, "./sandbox.js", "generated/sandbox.json"),
      ],
    ]);
    const stale: string[] = check ? await staleBundleFiles(bundle) : [];
    for (const [file, content] of outputs) {
      if ((await readOrEmpty(file)) === content) continue;
      stale.push(rel(file));
      if (!check) await writeFile(file, content);
    }
    if (check && stale.length > 0)
      throw new JobFailure(`stale: ${stale.join(", ")}; run \`npm run generate\` and commit the result`);
    if (check) return "generated files are up to date";
    return stale.length > 0 ? `wrote ${stale.join(", ")}` : "generated files already up to date";
  },
});

if (isEntryPoint(import.meta.url)) await main(generateCommand);
