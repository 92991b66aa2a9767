/**
 * The release's git steps: refuse to release from a working tree with uncommitted changes (the tag must name the
 * commit whose contract was released, as `npm version` refuses too), then commit what the release wrote and tag
 * that commit `v<version>`, annotated.
 */
import { spawnSync } from "node:child_process";
import { JobFailure, UsageError } from "partner-api-devkit/cli";

function git(root: string, args: string[]): string {
  const result = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  if (result.error) throw new UsageError(`git could not run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} exited ${result.status}: ${result.stderr.trim()}`);
  return result.stdout;
}

export function releaseTag(version: string): string {
  return `v${version}`;
}

/** Throws, naming what is wrong, unless `root` is a git work tree with nothing uncommitted and no tag `v<version>`. */
export function checkReadyToTag(root: string, version: string): void {
  const inside = spawnSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: root, encoding: "utf8" });
  if (inside.status !== 0 || inside.stdout.trim() !== "true")
    throw new UsageError(`${root} is not a git work tree: release with --no-tag, or from a clone`);
  const dirty = git(root, ["status", "--porcelain", "--untracked-files=no"]).trimEnd();
  if (dirty !== "")
    throw new JobFailure(
      `the working tree has uncommitted changes, so the tag would not name what was released:\n${dirty}\nCommit or stash them first`,
    );
  const tag = releaseTag(version);
  if (git(root, ["tag", "--list", tag]).trim() !== "") throw new JobFailure(`the tag ${tag} exists already`);
}

/** Commits `files` (relative to `root`) as "Release <version>" and tags the commit; returns the tag and commit. */
export function commitAndTag(root: string, files: readonly string[], version: string): { tag: string; commit: string } {
  const tag = releaseTag(version);
  git(root, ["add", "--", ...files]);
  git(root, ["commit", "--quiet", "-m", `Release ${version}`, "--", ...files]);
  git(root, ["tag", "-a", tag, "-m", `Release ${version}`]);
  return { tag, commit: git(root, ["rev-parse", "HEAD"]).trim() };
}
