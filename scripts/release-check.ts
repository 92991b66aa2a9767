/**
 * `npm run release:check -- --tag v<version>`: the release workflow's first step. The tag `npm run release` made
 * must name the version both packages (`partner-api-client`, `partner-api-devkit`) carry, the devkit's peer
 * dependency on the client, and the contract's `info.version` (its source root and the bundle in generated/);
 * anything else stops the workflow before it publishes. Exit 0 all agree, 1 one disagrees (each named), 2 a tag
 * that is not `v<x.y.z>`.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { defineCommand, describeValue, isEntryPoint, JobFailure, main, UsageError } from "partner-api-devkit/cli";
import { repoRoot } from "./lib/paths.ts";
import { CONTRACT_ROOT_FILE, contractVersionOf, isVersion, releasedContractFile } from "./lib/release/versions.ts";

/** Where each version the tag must match is read, and how. */
export const VERSION_SOURCES = [
  { file: "package.json", what: "partner-api-client's version", read: (text: string) => json(text).version },
  { file: "devkit/package.json", what: "partner-api-devkit's version", read: (text: string) => json(text).version },
  {
    file: "devkit/package.json",
    what: "partner-api-devkit's peer dependency on partner-api-client",
    read: (text: string) => json(text).peerDependencies?.["partner-api-client"],
  },
  { file: CONTRACT_ROOT_FILE, what: "the contract's info.version", read: contractVersionOf },
  {
    file: "generated/openapi.json",
    what: "the bundled contract's info.version",
    read: (text: string) => json(text).info?.version,
  },
] as const;

const KEPT_CONTRACT = "the release's kept contract (the docs' version switcher)";
/** How many versions a release must agree on: the sources above and the kept contract. */
export const CHECKED_VERSIONS = VERSION_SOURCES.length + 1;

interface Manifest {
  version?: string;
  peerDependencies?: Record<string, string>;
  info?: { version?: string };
}

function json(text: string): Manifest {
  return JSON.parse(text) as Manifest;
}

/** `v1.2.3` (or `refs/tags/v1.2.3`, as GITHUB_REF names it) → `1.2.3`; anything else is bad input. */
export function versionOfTag(tag: string): string {
  const version = tag.replace(/^refs\/tags\//, "").replace(/^v/, "");
  if (!/^v/.test(tag.replace(/^refs\/tags\//, "")) || !isVersion(version))
    throw new UsageError(`--tag must be v<x.y.z> as npm run release makes it (v1.2.0), got ${describeValue(tag)}`);
  return version;
}

export interface Mismatch {
  file: string;
  what: string;
  found: string | undefined;
}

/** Every version in `root` that is not `version`. */
export async function releaseMismatches(root: string, version: string): Promise<Mismatch[]> {
  const mismatches: Mismatch[] = [];
  for (const source of VERSION_SOURCES) {
    const found = source.read(await readFile(path.join(root, source.file), "utf8"));
    if (found !== version) mismatches.push({ file: source.file, what: source.what, found });
  }
  // The release's contract, kept for the docs' version switcher.
  const kept = releasedContractFile(version);
  const found = existsSync(path.join(root, kept))
    ? json(await readFile(path.join(root, kept), "utf8")).info?.version
    : undefined;
  if (found !== version) mismatches.push({ file: kept, what: KEPT_CONTRACT, found });
  return mismatches;
}

export const releaseCheckCommand = defineCommand({
  name: "npm run release:check --",
  summary: "checks that a release tag names the version of both packages and of the contract",
  usage: `Usage: npm run release:check -- --tag <v<x.y.z>> [--root <dir>]

The release workflow runs it before it builds or publishes: the tag (default: GITHUB_REF_NAME) must name the
version of ${VERSION_SOURCES.map((source) => `${source.what} (${source.file})`).join(", ")}, and
${KEPT_CONTRACT} must be release/versions/<x.y.z>.json with that info.version.

Exit codes: 0 all agree, 1 one or more disagree (each named), 2 no tag or a tag that is not v<x.y.z>, 3 a bug.`,
  options: { tag: { type: "string" }, root: { type: "string" } },
  async run({ values, io }) {
    const tag = values.tag ?? process.env.GITHUB_REF_NAME;
    if (tag === undefined || tag === "")
      throw new UsageError("--tag is required (or GITHUB_REF_NAME): the tag npm run release made, v<x.y.z>");
    const version = versionOfTag(tag);
    const root = values.root === undefined ? repoRoot : path.resolve(values.root);
    const mismatches = await releaseMismatches(root, version);
    for (const { file, what, found } of mismatches)
      io.err(`${file}: ${what} is ${found === undefined ? "missing" : found}, the tag says ${version}`);
    if (mismatches.length > 0)
      throw new JobFailure(
        `${tag} does not match ${mismatches.length} of ${CHECKED_VERSIONS} versions: nothing may be published (tag the commit npm run release made)`,
      );
    return `${tag}: both packages and the contract are ${version}`;
  },
});

if (isEntryPoint(import.meta.url)) await main(releaseCheckCommand);
