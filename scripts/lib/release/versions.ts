/**
 * One version for the package and the contract: `npm run release` gives both the same number, the contract's
 * `info.version` and package.json's `version`, and keeps each released contract under release/versions/ so the
 * published docs can show the reference of any release (docs/design/published-docs.md, "One version for the package and the contract", says why one number).
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "partner-api-devkit/cli";
import { parseDocument } from "yaml";

/** Where each released contract is kept, one bundled JSON file per version. */
export const RELEASED_CONTRACTS_DIR = "release/versions";
/** The contract's root file, whose `info.version` the release sets. */
export const CONTRACT_ROOT_FILE = "openapi/openapi.yaml";

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;

export function isVersion(text: unknown): text is string {
  return typeof text === "string" && SEMVER.test(text);
}

/** Negative when `a` is older than `b`, by major, minor and patch. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((version) => {
    const match = SEMVER.exec(version);
    if (!match) throw new UsageError(`version ${JSON.stringify(version)} is not x.y.z`);
    return match.slice(1).map(Number) as [number, number, number];
  }) as [[number, number, number], [number, number, number]];
  for (let index = 0; index < 3; index++) if (x[index] !== y[index]) return x[index]! - y[index]!;
  return 0;
}

/**
 * The version a release counts on from: the higher of the package's and the contract's, so neither number ever
 * goes back (the first release under one number took the contract from 1.0.0 and the package from 0.1.0).
 */
export function currentVersion(packageVersion: string, contractVersion: string | undefined): string {
  if (!isVersion(packageVersion))
    throw new UsageError(`package.json version ${JSON.stringify(packageVersion)} is not x.y.z`);
  if (!isVersion(contractVersion)) return packageVersion;
  return compareVersions(contractVersion, packageVersion) > 0 ? contractVersion : packageVersion;
}

/** The contract root's text with `info.version` set to `version`, every other byte as it was. */
export function withContractVersion(text: string, version: string, file = CONTRACT_ROOT_FILE): string {
  const document = parseDocument(text, { keepSourceTokens: true });
  const node = document.getIn(["info", "version"], true) as { range?: [number, number, number] } | undefined;
  if (!node?.range) throw new UsageError(`${file} has no info.version to set`);
  const [start, end] = node.range;
  return `${text.slice(0, start)}${version}${text.slice(end)}`;
}

/** The contract's `info.version` as the root file states it, or undefined. */
export function contractVersionOf(text: string): string | undefined {
  const value = parseDocument(text).getIn(["info", "version"]);
  return value === undefined || value === null ? undefined : String(value);
}

export function releasedContractFile(version: string): string {
  return `${RELEASED_CONTRACTS_DIR}/${version}.json`;
}

export interface ReleasedContract {
  version: string;
  file: string;
}

/** The contracts kept under release/versions/ of `root`, newest first; files not named `x.y.z.json` are refused. */
export async function releasedContracts(root: string): Promise<ReleasedContract[]> {
  const dir = path.join(root, RELEASED_CONTRACTS_DIR);
  if (!existsSync(dir)) return [];
  const found: ReleasedContract[] = [];
  for (const name of await readdir(dir)) {
    const version = name.replace(/\.json$/, "");
    if (!name.endsWith(".json") || !isVersion(version))
      throw new UsageError(
        `${RELEASED_CONTRACTS_DIR}/${name} is not named <x.y.z>.json; only released contracts belong there`,
      );
    found.push({ version, file: path.join(dir, name) });
  }
  return found.sort((a, b) => compareVersions(b.version, a.version));
}

/** A released contract's document, checked to be an OpenAPI object. */
export async function readReleasedContract(contract: ReleasedContract): Promise<Record<string, unknown>> {
  const document = JSON.parse(await readFile(contract.file, "utf8")) as unknown;
  if (typeof document !== "object" || document === null || !("openapi" in document))
    throw new UsageError(`${contract.file} is not an OpenAPI document`);
  return document as Record<string, unknown>;
}
