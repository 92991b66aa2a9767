/**
 * Where the two contracts come from: a git ref (the split contract at that commit, bundled), an
 * already bundled file (YAML or JSON), or the working tree (bundled fresh).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { rel, repoRoot } from "../paths.ts";
import { type Document, isObject } from "./resolve.ts";

/** Bad input from the user (a missing file, an unknown ref): the CLI exits 2 with this message. */
export class DiffInputError extends Error {}

export interface LoadedContract {
  document: Document;
  /** What was loaded, for messages: `git HEAD~1 (3f2a1b0)`, `file generated/openapi.json`, `working tree`. */
  label: string;
}

const CONTRACT_ROOT = "openapi/openapi.yaml";

/** Redocly takes about a second to load: only pay for it when a contract is to be bundled. */
const loadBundler = () => import("../bundle.ts");

function git(args: string[], cwd: string, input?: Buffer) {
  return spawnSync("git", args, { cwd, input, maxBuffer: 256 * 1024 * 1024 });
}

/** The top of the git work tree containing `dir`, or undefined outside git. */
export function gitTopLevel(dir: string): string | undefined {
  const result = git(["rev-parse", "--show-toplevel"], dir);
  return result.status === 0 ? result.stdout.toString().trim() : undefined;
}

/** True when `ref` names a commit in the repository at `repoDir`. */
export function gitRefExists(ref: string, repoDir: string): boolean {
  return !ref.startsWith("-") && git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], repoDir).status === 0;
}

/** True when the commit `ref` holds the split contract (openapi/openapi.yaml). */
export function gitRefHasContract(ref: string, repoDir: string): boolean {
  return git(["cat-file", "-e", `${ref}:${CONTRACT_ROOT}`], repoDir).status === 0;
}

/** Extracts openapi/ (and redocly.yaml) at `ref` into a temporary directory and bundles it there. */
export async function bundleGitRef(ref: string, repoDir: string): Promise<LoadedContract> {
  if (!gitRefExists(ref, repoDir)) {
    throw new DiffInputError(
      `git ref "${ref}" does not exist in this repository; give a commit, branch or tag (for example HEAD~1), or a bundled file`,
    );
  }
  if (!gitRefHasContract(ref, repoDir)) {
    throw new DiffInputError(`git ref "${ref}" has no contract: ${CONTRACT_ROOT} is not in that commit`);
  }
  const commit = git(["rev-parse", "--short", `${ref}^{commit}`], repoDir)
    .stdout.toString()
    .trim();
  const hasConfig = git(["cat-file", "-e", `${ref}:redocly.yaml`], repoDir).status === 0;
  const dir = await mkdtemp(path.join(tmpdir(), "contract-diff-"));
  try {
    const archive = git(["archive", "--format=tar", ref, "openapi", ...(hasConfig ? ["redocly.yaml"] : [])], repoDir);
    if (archive.status !== 0)
      throw new DiffInputError(`git archive of "${ref}" failed: ${archive.stderr.toString().trim()}`);
    const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout });
    if (untar.status !== 0)
      throw new Error(`cannot unpack the contract of "${ref}": ${untar.stderr.toString().trim()}`);
    const config = hasConfig ? path.join(dir, "redocly.yaml") : path.join(repoRoot, "redocly.yaml");
    try {
      const { bundleContract } = await loadBundler();
      const { document } = await bundleContract(path.join(dir, CONTRACT_ROOT), config);
      return { document: document as Document, label: `git ${ref} (${commit})` };
    } catch (error) {
      // Name the ref, never this machine's temporary directory.
      const message = (error as Error).message.split(rel(dir)).join(`${ref}:`).split(dir).join(`${ref}:`);
      throw new DiffInputError(`cannot bundle the contract at git ref "${ref}": ${message}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bundles the working tree's contract of the repository at `repoDir`. */
export async function bundleWorkingTree(repoDir: string): Promise<LoadedContract> {
  const root = path.join(repoDir, CONTRACT_ROOT);
  if (!existsSync(root)) throw new DiffInputError(`no contract in the working tree: ${CONTRACT_ROOT} is missing`);
  const config = existsSync(path.join(repoDir, "redocly.yaml"))
    ? path.join(repoDir, "redocly.yaml")
    : path.join(repoRoot, "redocly.yaml");
  try {
    const { bundleContract } = await loadBundler();
    const { document } = await bundleContract(root, config);
    return { document: document as Document, label: "working tree" };
  } catch (error) {
    throw new DiffInputError(`cannot bundle the working tree's contract: ${(error as Error).message}`);
  }
}

/** Reads an already bundled contract (YAML or JSON); `option` names the CLI option in errors. */
export async function loadBundledFile(file: string, option = "file"): Promise<LoadedContract> {
  const shown = path.isAbsolute(file) ? path.basename(file) : file;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new DiffInputError(
      `${option} "${shown}" cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new DiffInputError(
      `${option} "${shown}" is not valid YAML or JSON: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  if (!isObject(document) || typeof document.openapi !== "string" || !document.openapi.startsWith("3.")) {
    throw new DiffInputError(`${option} "${shown}" is not an OpenAPI 3.x document (no "openapi: 3.x" at its top)`);
  }
  if (!isObject(document.paths) && !isObject(document.webhooks)) {
    throw new DiffInputError(`${option} "${shown}" has neither paths nor webhooks`);
  }
  if (/"\$ref":"(?!#)/.test(JSON.stringify(document))) {
    throw new DiffInputError(
      `${option} "${shown}" has references to other files: give a bundled document (npm run bundle)`,
    );
  }
  return { document, label: `file ${shown}` };
}

/**
 * `--base`: an existing file is read as a bundled contract; anything else must be a git ref.
 * A value that is neither gets an error naming it.
 */
export async function loadBase(value: string, repoDir: string | undefined): Promise<LoadedContract> {
  if (existsSync(value)) return loadBundledFile(value, "--base");
  if (!repoDir)
    throw new DiffInputError(
      `--base "${value}" is not a file, and the current directory is not in a git repository to look it up as a ref`,
    );
  if (!gitRefExists(value, repoDir)) {
    throw new DiffInputError(`--base "${value}" is neither a file nor a git ref of this repository`);
  }
  return bundleGitRef(value, repoDir);
}
