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

/** The project's ruleset, bundled and loaded once per process (a bundle is tens of milliseconds, the first a second). */
let loaded: ReturnType<typeof loadSpectral> | undefined;

/**
 * A linter with the project's .spectral.yaml loaded and every rule turned off but `ruleName`
 * (azure-api-style-guide's `linterForRule`), so a test sees only what that rule reports. The linters share one
 * Spectral: each turns on its own rule alone right before it runs (a file's tests run one at a time).
 */
export async function linterForRule(ruleName: string) {
  loaded ??= loadSpectral();
  const spectral = await loaded;
  const rules = spectral.ruleset!.rules;
  if (!(ruleName in rules)) throw new Error(`no rule "${ruleName}" in .spectral.yaml`);
  return async (document: unknown): Promise<LintResult[]> => {
    for (const [name, rule] of Object.entries(rules)) rule.enabled = name === ruleName;
    const results = await spectral.run(new Document(JSON.stringify(document, null, 2), Parsers.Json, "openapi.json"));
    return results.map(({ code, message, path: where, severity }) => ({ code, message, path: [...where], severity }));
  };
}
