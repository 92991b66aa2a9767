/**
 * `npm run lint`: Redocly's rules on the split contract, then Spectral's (spectral:oas and this API's own
 * rules) on its bundle; without --root, the sandbox's control contract (openapi/sandbox/) too. Fails on any
 * error or warning, so the contracts stay at 0 of both.
 *   npm run lint [-- --root <path/to/openapi.yaml>]
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { bundleContract } from "./lib/bundle.ts";
import { type Finding, lintSandboxContract, lintWithRedocly, lintWithSpectral } from "./lib/lint.ts";
import { fail, formatDuration, step } from "./lib/log.ts";
import { contractRoot, rel } from "./lib/paths.ts";

const started = performance.now();
const args = process.argv.slice(2);
let root = contractRoot;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--root" && args[i + 1]) root = path.resolve(args[++i]!);
  else fail(`unknown argument "${args[i]}"; usage: npm run lint [-- --root <openapi.yaml>]`, 2);
}
if (!existsSync(root)) fail(`--root: no file at ${rel(root)}`, 2);

try {
  const redocly = await step(`Redocly lint of ${rel(root)}`, () => lintWithRedocly(root));
  const bundle = await step("bundle", () => bundleContract(root));
  const bundleName = root === contractRoot ? "generated/openapi.yaml" : `bundle-of-${rel(root)}`;
  const spectral = await step("Spectral lint of the bundle", () => lintWithSpectral(bundle, bundleName));
  const sandbox =
    root === contractRoot ? await step("lint of the sandbox control contract", () => lintSandboxContract()) : [];
  const findings = [...redocly, ...spectral, ...sandbox];
  for (const finding of findings) print(finding);
  const count = (severity: Finding["severity"]) => findings.filter((f) => f.severity === severity).length;
  const took = formatDuration(performance.now() - started);
  const summary = `${count("error")} errors, ${count("warning")} warnings, ${count("info") + count("hint")} notes (Redocly ${redocly.length}, Spectral ${spectral.length}, sandbox ${sandbox.length}) in ${took}`;
  if (count("error") + count("warning") > 0) fail(`lint failed: ${summary}`);
  console.log(`lint passed: ${summary}`);
} catch (error) {
  fail((error as Error).message);
}

function print(finding: Finding): void {
  const pointer = finding.pointer ? ` (${finding.pointer})` : "";
  console.log(`${finding.where}  ${finding.severity}  ${finding.tool}/${finding.rule}  ${finding.message}${pointer}`);
}
