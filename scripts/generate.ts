/**
 * `npm run generate`: bundles the contract when the bundle is stale, then writes generated/schema.d.ts
 * (openapi-typescript), generated/contract.ts (the runtime facts the client and the webhook kit need),
 * devkit/generated/sandbox.d.ts (the sandbox control API's types, the devkit's own) and generated/examples.ts and
 * devkit/generated/sandbox-examples.ts (every example of each contract as a typed const, which tsc compiles).
 * `--check` writes nothing and exits 1 when a generated file is stale. A check that passed is remembered by a digest
 * of its inputs and of the files it compared (scripts/lib/check-stamp.ts): the next one with the same bytes passes
 * without bundling and generating again, and loads neither Redocly nor the type generator.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { defineCommand, isEntryPoint, JobFailure, type JsonObject, main } from "partner-api-devkit/cli";
import { CHECK_CACHE_DIR, digestOf, stampHolds, writeStamp } from "./lib/check-stamp.ts";
import { rel, repoRoot } from "./lib/paths.ts";

/**
 * What the generated files can depend on: the contracts and their Redocly config, the code that bundles and
 * generates (scripts/, and the two packages it uses), and the installed tools' versions (the lockfile).
 */
const CHECK_INPUTS = ["openapi", "redocly.yaml", "scripts", "src", "devkit/src", "package.json", "package-lock.json"];
const CHECK_STAMP = path.join(CHECK_CACHE_DIR, "generate-check.json");

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
    const inputs = check ? digestOf(repoRoot, CHECK_INPUTS) : "";
    const passedAt = check ? stampHolds(CHECK_STAMP, repoRoot, inputs) : undefined;
    if (passedAt !== undefined)
      return `generated files are up to date (inputs and generated files unchanged since the check of ${passedAt})`;
    // Loaded only when there is work: Redocly and the type generator take seconds to load.
    const { bundleContract, bundleSandboxContract, ensureBundle, freshBundleFiles, readOrEmpty } = await import(
      "./lib/bundle.ts"
    );
    const {
      contractModulePath,
      examplesModulePath,
      generateContractModule,
      generateExamplesModule,
      generateSandboxTypes,
      generateSchemaTypes,
      sandboxExamplesModulePath,
      sandboxTypesPath,
      schemaTypesPath,
    } = await import("./lib/generate.ts");
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
    const compared = check ? [...(await freshBundleFiles(bundle)), ...outputs] : [...outputs];
    const stale: string[] = [];
    for (const [file, content] of compared) {
      if ((await readOrEmpty(file)) === content) continue;
      stale.push(rel(file));
      if (!check) await writeFile(file, content);
    }
    if (check && stale.length > 0)
      throw new JobFailure(`stale: ${stale.join(", ")}; run \`npm run generate\` and commit the result`);
    if (check) {
      writeStamp(CHECK_STAMP, repoRoot, inputs, compared);
      return "generated files are up to date";
    }
    return stale.length > 0 ? `wrote ${stale.join(", ")}` : "generated files already up to date";
  },
});

if (isEntryPoint(import.meta.url)) await main(generateCommand);
