/**
 * Where the devkit finds its files, whether it runs built from its package (dist/cli.js, dist/sandbox.js,
 * installed in a partner's node_modules) or from source in this repository (node's type stripping, devkit/src/…).
 * The built package carries copies of the bundled contracts in dist/; from source they are read from the
 * repository's generated/, so a change to the contract needs no devkit build to be seen.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** True when running from TypeScript source (this repository), false in the built package. */
export const fromSource = import.meta.url.endsWith(".ts");

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`partner-api-devkit: no package.json above ${start}`);
  }
}

/** The devkit package's own folder (devkit/ here, node_modules/partner-api-devkit/ once installed). */
export const packageRoot = findPackageRoot(here);

/** The devkit's version, as `partner-api --version` prints it. */
export const devkitVersion: string = (
  JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { version: string }
).version;

/** Folder of the bundled contracts: dist/ of the package, or the repository's generated/ from source. */
export const contractDir = fromSource ? path.join(packageRoot, "..", "generated") : path.join(packageRoot, "dist");

/** The bundled partner API contract (OpenAPI 3.1, JSON). */
export const contractJsonPath = path.join(contractDir, "openapi.json");

/** The bundled control contract of the sandbox (`/_sandbox/…`, OpenAPI 3.1, JSON). */
export const sandboxContractJsonPath = path.join(contractDir, "sandbox.json");

/**
 * The Arazzo documents the devkit ships (the sandbox's scenarios, the control CLI's triggers): dist/workflows/ of the
 * package, or the repository's openapi/workflows/ from source.
 */
export const workflowsDir = fromSource
  ? path.join(packageRoot, "..", "openapi", "workflows")
  : path.join(packageRoot, "dist", "workflows");

/** A file for a message: relative to the working directory when under it, never this machine's absolute path. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  if (relative === "") return ".";
  if (!relative.startsWith("..") && !path.isAbsolute(relative)) return relative;
  const inPackage = path.relative(packageRoot, file);
  return inPackage.startsWith("..") ? path.basename(file) : `partner-api-devkit/${inPackage}`;
}
