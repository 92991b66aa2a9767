/**
 * Throwaway copies of the repository for work that must not touch the working tree: the benchmarks' copy and the
 * contract-change rehearsal (scripts/rehearse.ts). node_modules is linked, never copied.
 */
import { mkdir, readdir, readlink, symlink } from "node:fs/promises";
import path from "node:path";

/**
 * The copy's node_modules/: a link to each installed package of the repository, but the workspace links (the
 * client and the devkit, relative links into the repository) made again relative, so in the copy they are the
 * copy's own packages and `partner-api-devkit/cli` is the runner the copy's commands throw its errors from.
 * `skip` names entries left out (the rehearsal leaves out `.cache`, so the copy's incremental tsc never writes the
 * repository's own build info).
 */
export async function linkNodeModules(repoRoot: string, dir: string, skip: ReadonlySet<string> = new Set()) {
  const installed = path.join(repoRoot, "node_modules");
  await mkdir(path.join(dir, "node_modules"));
  for (const entry of await readdir(installed, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const target = entry.isSymbolicLink() ? await readlink(path.join(installed, entry.name)) : undefined;
    const workspace = target !== undefined && !path.isAbsolute(target);
    await symlink(workspace ? target : path.join(installed, entry.name), path.join(dir, "node_modules", entry.name));
  }
}
