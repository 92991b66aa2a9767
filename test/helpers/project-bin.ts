/**
 * A partner's project, as far as `npx partner-api …` goes: a folder whose node_modules/.bin/partner-api runs the
 * devkit's CLI from source (the bin, unbuilt), so npx finds it as it finds an installed one.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { TSX_NODE_ARGS } from "../../scripts/lib/source.ts";

const MAIN = path.join(repoRoot, "devkit", "src", "cli", "main.ts");

/** A new temporary project folder with the bin and a package.json (`scripts` among its fields); the caller removes it. */
export function projectWithBin(scripts: Record<string, string> = {}): string {
  const folder = mkdtempSync(path.join(tmpdir(), "partner-api-project-"));
  mkdirSync(path.join(folder, "node_modules", ".bin"), { recursive: true });
  const bin = path.join(folder, "node_modules", ".bin", "partner-api");
  const quoted = [process.execPath, ...TSX_NODE_ARGS, MAIN].map((arg) => `'${arg}'`).join(" ");
  writeFileSync(bin, `#!/bin/sh\nexec ${quoted} "$@"\n`);
  chmodSync(bin, 0o755);
  writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: "partner-project", private: true, scripts }));
  return folder;
}
