/**
 * `npm run lint`: Redocly's rules on the split contract, then Spectral's (spectral:oas and this API's own
 * rules) on its bundle; without --root, the sandbox's control contract (openapi/sandbox/) and the workflows
 * (openapi/workflows/: Redocly, spectral:arazzo and the devkit's checks against both contracts) too. Fails on any
 * error or warning, so the contracts stay at 0 of both.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { type CliIO, defineCommand, isEntryPoint, JobFailure, main, step, UsageError } from "partner-api-devkit/cli";
import { bundleContract, bundleSandboxContract } from "./lib/bundle.ts";
import {
  type Finding,
  lintOperationIdsAcrossContracts,
  lintSandboxContract,
  lintWithRedocly,
  lintWithSpectral,
  lintWorkflows,
} from "./lib/lint.ts";
import { contractRoot, rel } from "./lib/paths.ts";

function print(io: CliIO, finding: Finding): void {
  const pointer = finding.pointer ? ` (${finding.pointer})` : "";
  io.out(`${finding.where}  ${finding.severity}  ${finding.tool}/${finding.rule}  ${finding.message}${pointer}`);
}

export const lintCommand = defineCommand({
  name: "npm run lint --",
  summary:
    "Redocly and Spectral on the contract, the sandbox's control contract and the workflows; fails on any error or warning",
  usage: `Usage: npm run lint [-- --root <openapi.yaml>]

Options:
  --root <file>   lint another copy of the contract (its root file); the sandbox contract and the workflows are
                  then skipped

Prints one line per finding (file:line:column, severity, tool/rule, message) on stdout.
Exit codes: 0 no errors and no warnings, 1 findings, 2 bad input, 3 a bug.`,
  options: { root: { type: "string" } },
  async run({ values, io }) {
    const root = values.root === undefined ? contractRoot : path.resolve(values.root);
    if (!existsSync(root)) throw new UsageError(`--root: no file at ${rel(root)}`);
    const redocly = await step(io, `Redocly lint of ${rel(root)}`, () => lintWithRedocly(root));
    const bundle = await step(io, "bundle", () => bundleContract(root));
    const bundleName = root === contractRoot ? "generated/openapi.yaml" : `bundle-of-${rel(root)}`;
    const spectral = await step(io, "Spectral lint of the bundle", () => lintWithSpectral(bundle, bundleName));
    const sandbox =
      root === contractRoot ? await step(io, "lint of the sandbox control contract", () => lintSandboxContract()) : [];
    const control = root === contractRoot ? await bundleSandboxContract() : undefined;
    const across = control
      ? await step(io, "operationIds unique across both contracts", async () =>
          lintOperationIdsAcrossContracts(bundle.document, control.document),
        )
      : [];
    const workflows = control
      ? await step(io, "lint of the workflows (openapi/workflows/)", async () =>
          lintWorkflows({ partner: bundle, control }),
        )
      : [];
    const findings = [...redocly, ...spectral, ...sandbox, ...across, ...workflows];
    for (const finding of findings) print(io, finding);
    const count = (severity: Finding["severity"]) => findings.filter((f) => f.severity === severity).length;
    const summary = `${count("error")} errors, ${count("warning")} warnings, ${count("info") + count("hint")} notes (Redocly ${redocly.length}, Spectral ${spectral.length}, sandbox ${sandbox.length}, across both contracts ${across.length}, workflows ${workflows.length})`;
    if (count("error") + count("warning") > 0) throw new JobFailure(`lint: ${summary}`);
    return `lint passed: ${summary}`;
  },
});

if (isEntryPoint(import.meta.url)) await main(lintCommand);
