import fs from "node:fs";
import path from "node:path";
import spectralCore from "@stoplight/spectral-core";
import spectralParsers from "@stoplight/spectral-parsers";
import { bundleAndLoadRuleset } from "@stoplight/spectral-ruleset-bundler/with-loader";
import spectralRuntime from "@stoplight/spectral-runtime";
import { repoRoot } from "../../scripts/lib/paths.ts";

const { Spectral, Document } = spectralCore;
const Parsers = spectralParsers;
const { fetch } = spectralRuntime;

export interface LintResult {
  code: string | number;
  message: string;
  path: (string | number)[];
  severity: number;
}

/**
 * A linter with the project's .spectral.yaml loaded and every rule turned off but `ruleName`
 * (azure-api-style-guide's `linterForRule`), so a test sees only what that rule reports.
 */
export async function linterForRule(ruleName: string) {
  const ruleset = await bundleAndLoadRuleset(path.join(repoRoot, ".spectral.yaml"), { fs, fetch });
  if (!(ruleName in ruleset.rules)) throw new Error(`no rule "${ruleName}" in .spectral.yaml`);
  for (const [name, rule] of Object.entries(ruleset.rules)) rule.enabled = name === ruleName;
  const spectral = new Spectral();
  spectral.setRuleset(ruleset);
  return async (document: unknown): Promise<LintResult[]> => {
    const results = await spectral.run(new Document(JSON.stringify(document, null, 2), Parsers.Json, "openapi.json"));
    return results.map(({ code, message, path: where, severity }) => ({ code, message, path: [...where], severity }));
  };
}
