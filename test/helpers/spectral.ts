import spectralCore from "@stoplight/spectral-core";
import spectralParsers from "@stoplight/spectral-parsers";
import { loadSpectral } from "../../scripts/lib/lint.ts";

const { Document } = spectralCore;
const Parsers = spectralParsers;

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
  const spectral = await loadSpectral();
  const rules = spectral.ruleset!.rules;
  if (!(ruleName in rules)) throw new Error(`no rule "${ruleName}" in .spectral.yaml`);
  for (const [name, rule] of Object.entries(rules)) rule.enabled = name === ruleName;
  return async (document: unknown): Promise<LintResult[]> => {
    const results = await spectral.run(new Document(JSON.stringify(document, null, 2), Parsers.Json, "openapi.json"));
    return results.map(({ code, message, path: where, severity }) => ({ code, message, path: [...where], severity }));
  };
}
