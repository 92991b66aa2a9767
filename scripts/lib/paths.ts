import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, whatever directory a script is started from. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export const contractRoot = path.join(repoRoot, "openapi", "openapi.yaml");
export const generatedDir = path.join(repoRoot, "generated");
export const bundleYamlPath = path.join(generatedDir, "openapi.yaml");
export const bundleJsonPath = path.join(generatedDir, "openapi.json");

/** The sandbox's control contract (`/_sandbox/…`), linted, bundled and typed beside the partner contract. */
export const sandboxContractRoot = path.join(repoRoot, "openapi", "sandbox", "openapi.yaml");
export const sandboxBundleYamlPath = path.join(generatedDir, "sandbox.yaml");
export const sandboxBundleJsonPath = path.join(generatedDir, "sandbox.json");

/** The partners' guide: its quick start holds the install steps, its TypeScript blocks are type-checked. */
export const partnersGuidePath = path.join(repoRoot, "docs", "partners.md");

/** The Arazzo workflows (openapi/workflows/*.arazzo.yaml), linted with the contracts and shipped by the devkit. */
export const workflowsDir = path.join(repoRoot, "openapi", "workflows");

/** The Arazzo files of a folder (`*.arazzo.yaml`), sorted. */
export function workflowFiles(dir: string = workflowsDir): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".arazzo.yaml"))
    .sort()
    .map((name) => path.join(dir, name));
}

/** A path relative to the repository root, for messages: never print this machine's paths. */
export function rel(file: string): string {
  return path.relative(repoRoot, file) || ".";
}
