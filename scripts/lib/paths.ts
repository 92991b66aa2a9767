import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, whatever directory a script is started from. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export const contractRoot = path.join(repoRoot, "openapi", "openapi.yaml");
export const generatedDir = path.join(repoRoot, "generated");
export const bundleYamlPath = path.join(generatedDir, "openapi.yaml");
export const bundleJsonPath = path.join(generatedDir, "openapi.json");

/** A path relative to the repository root, for messages: never print this machine's paths. */
export function rel(file: string): string {
  return path.relative(repoRoot, file) || ".";
}
