/**
 * `npm run generate`: bundles the contract when the bundle is stale, then writes generated/schema.d.ts
 * (openapi-typescript), generated/contract.ts (the runtime facts the client and the webhook kit need) and
 * generated/sandbox.d.ts (the sandbox control API's types).
 * `--check` writes nothing and exits 1 when a generated file is stale.
 */
import { writeFile } from "node:fs/promises";
import { bundleContract, ensureBundle, readOrEmpty, staleBundleFiles } from "./lib/bundle.ts";
import {
  contractModulePath,
  generateContractModule,
  generateSandboxTypes,
  generateSchemaTypes,
  sandboxTypesPath,
  schemaTypesPath,
} from "./lib/generate.ts";
import { fail, formatDuration } from "./lib/log.ts";
import { rel } from "./lib/paths.ts";

const started = performance.now();
const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== "--check");
if (unknown.length > 0)
  fail(`unknown argument ${unknown.map((a) => `"${a}"`).join(", ")}; usage: npm run generate [-- --check]`, 2);
const check = args.includes("--check");

try {
  const bundle = check ? await bundleContract() : (await ensureBundle()).output;
  const outputs = new Map<string, string>([
    [schemaTypesPath, await generateSchemaTypes(bundle.document)],
    [sandboxTypesPath, await generateSandboxTypes()],
    [contractModulePath, generateContractModule(bundle.document)],
  ]);
  const stale: string[] = check ? await staleBundleFiles(bundle) : [];
  for (const [file, content] of outputs) {
    if ((await readOrEmpty(file)) === content) continue;
    stale.push(rel(file));
    if (!check) await writeFile(file, content);
  }
  const took = formatDuration(performance.now() - started);
  if (check && stale.length > 0)
    fail(`stale: ${stale.join(", ")}; run \`npm run generate\` and commit the result (${took})`);
  if (check) console.log(`generated files are up to date (${took})`);
  else
    console.log(
      stale.length > 0 ? `wrote ${stale.join(", ")} (${took})` : `generated files already up to date (${took})`,
    );
} catch (error) {
  fail((error as Error).message);
}
