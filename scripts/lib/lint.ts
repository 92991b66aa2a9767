import fs from "node:fs";
import path from "node:path";
import { getLineColLocation, loadConfig, lint as redoclyLint } from "@redocly/openapi-core";
import spectralCore from "@stoplight/spectral-core";
import spectralParsers from "@stoplight/spectral-parsers";
import { bundleAndLoadRuleset } from "@stoplight/spectral-ruleset-bundler/with-loader";
import spectralRuntime from "@stoplight/spectral-runtime";
import { pointerSegment } from "partner-api-devkit/cli";
import { type BundleOutput, bundleSandboxContract } from "./bundle.ts";
import { rel, repoRoot, sandboxContractRoot } from "./paths.ts";

const { Spectral, Document } = spectralCore;
const Parsers = spectralParsers;
const { fetch } = spectralRuntime;

export type Severity = "error" | "warning" | "info" | "hint";

export interface Finding {
  tool: "redocly" | "spectral";
  rule: string;
  severity: Severity;
  message: string;
  /** file:line:column, relative to the repository. */
  where: string;
  /** JSON pointer-like path inside the document, when known. */
  pointer?: string;
}

/** Redocly's rules (redocly.yaml) on the split source files. */
export async function lintWithRedocly(root: string): Promise<Finding[]> {
  const config = await loadConfig({ configPath: path.join(repoRoot, "redocly.yaml") });
  const problems = await redoclyLint({ ref: root, config });
  return problems
    .filter((problem) => !problem.ignored)
    .map((problem) => {
      const location = problem.location[0];
      let where = rel(root);
      if (location) {
        const { start } = getLineColLocation(location);
        where = `${rel(location.source.absoluteRef)}:${start.line}:${start.col}`;
      }
      return {
        tool: "redocly",
        rule: problem.ruleId,
        severity: problem.severity === "warn" ? "warning" : "error",
        message: problem.message,
        where,
        pointer: location?.pointer,
      } satisfies Finding;
    });
}

const SPECTRAL_SEVERITY: Severity[] = ["error", "warning", "info", "hint"];

/** The Spectral ruleset of the sandbox's control contract: spectral:oas and the rules that are not partner-only. */
const sandboxSpectralRuleset = path.join(repoRoot, "spectral", "sandbox.yaml");

/** A Spectral linter with a ruleset loaded (.spectral.yaml unless told), as `lintWithSpectral` and the rule tests use it. */
export async function loadSpectral(
  rulesetPath: string = path.join(repoRoot, ".spectral.yaml"),
): Promise<InstanceType<typeof Spectral>> {
  const spectral = new Spectral();
  spectral.setRuleset(await bundleAndLoadRuleset(rulesetPath, { fs, fetch }));
  return spectral;
}

/** Spectral's rules (.spectral.yaml unless told) on the bundle, where shared components are local $refs. */
export async function lintWithSpectral(
  bundle: BundleOutput,
  source = "generated/openapi.yaml",
  rulesetPath: string = path.join(repoRoot, ".spectral.yaml"),
): Promise<Finding[]> {
  const spectral = await loadSpectral(rulesetPath);
  const results = await spectral.run(new Document(bundle.yaml, Parsers.Yaml, source));
  return results.map((result) => ({
    tool: "spectral",
    rule: String(result.code),
    severity: SPECTRAL_SEVERITY[result.severity] ?? "error",
    message: result.message,
    where: `${source}:${result.range.start.line + 1}:${result.range.start.character + 1}`,
    pointer: `#/${result.path.map((segment) => pointerSegment(String(segment))).join("/")}`,
  }));
}

/** The sandbox's control contract: Redocly on its files, Spectral (spectral/sandbox.yaml) on its bundle. */
export async function lintSandboxContract(): Promise<Finding[]> {
  const redocly = await lintWithRedocly(sandboxContractRoot);
  const spectral = await lintWithSpectral(
    await bundleSandboxContract(),
    "generated/sandbox.yaml",
    sandboxSpectralRuleset,
  );
  return [...redocly, ...spectral];
}
