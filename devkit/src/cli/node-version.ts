/**
 * The Node.js versions the `partner-api` command runs on: 22.13 and later (the `engines` of devkit/package.json), the
 * first Node with `node:sqlite` without a flag; proven on Node 22, 24 and 26 by test/runtimes (npm run
 * test:runtimes). An older Node is refused at start, naming its version and what to use, before any module that
 * could fail on it in a less clear way is loaded.
 */

export const MINIMUM_NODE = [22, 13] as const;
/** The Node.js lines the smoke test runs the command under. */
export const TESTED_NODE_MAJORS = [22, 24, 26] as const;

/** Why `version` (as `process.versions.node`, e.g. "20.20.2") cannot run the command, or undefined when it can. */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [wantMajor, wantMinor] = MINIMUM_NODE;
  if (major > wantMajor || (major === wantMajor && minor >= wantMinor)) return undefined;
  return (
    `partner-api needs Node.js ${wantMajor}.${wantMinor} or later (for node:sqlite; tested on ` +
    `${TESTED_NODE_MAJORS.join(", ")}); this is Node.js ${version}. Install a current LTS, e.g. Node.js 24 ` +
    `(nvm install 24), and run it again.`
  );
}
