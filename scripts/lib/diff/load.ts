/**
 * Where the two contracts come from: a file (OpenAPI 3.0 or 3.1, YAML or JSON, one document or split over
 * several files), a file at a git ref (`main:openapi/openapi.yaml`), a git ref alone (this repository's
 * contract at that commit), or the working tree. Split documents are bundled with Redocly; a document that is
 * already one file is read as it is, without loading Redocly (about a second).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describeValue, lookup, UsageError } from "partner-api-devkit/cli";
import { parse } from "yaml";
import { rel, repoRoot } from "../paths.ts";
import { type Document, isObject } from "./resolve.ts";

export interface LoadedContract {
  document: Document;
  /** What was loaded, for messages: `git HEAD~1 (3f2a1b0)`, `file release/openapi.json`, `working tree`. */
  label: string;
}

export const CONTRACT_ROOT = "openapi/openapi.yaml";

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

/**
 * The commit `git merge-base HEAD <ref>` names: where the current branch left `ref` (a pull request's target), so a
 * comparison with it judges the branch's own change and nothing merged into `ref` since. Bad input when `ref` is
 * no commit or the two share no history (a shallow clone: fetch more of it).
 */
export function mergeBase(ref: string, repoDir: string): string {
  if (!gitRefExists(ref, repoDir))
    throw new UsageError(
      `--merge-base ${describeValue(ref)} is not a git ref of this repository (origin/main, main, a commit)`,
    );
  const result = git(["merge-base", "HEAD", ref], repoDir);
  if (result.status !== 0)
    throw new UsageError(
      `--merge-base ${describeValue(ref)}: HEAD and ${ref} share no commit (a shallow clone? fetch with more depth)`,
    );
  return result.stdout.toString().trim();
}

function shortCommit(ref: string, repoDir: string): string {
  return git(["rev-parse", "--short", `${ref}^{commit}`], repoDir)
    .stdout.toString()
    .trim();
}

/** Every `$ref` value in a document. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") found.push(item);
      else refsIn(item, found);
    }
  }
  return found;
}

/** Checks what was read is an OpenAPI 3.x document; `shown` names it in the error. */
function checkOpenApi(document: unknown, shown: string): asserts document is Document {
  if (isObject(document) && typeof document.swagger === "string") {
    throw new UsageError(`${shown} is Swagger ${document.swagger}; give an OpenAPI 3.0 or 3.1 document`);
  }
  const version = isObject(document) ? document.openapi : undefined;
  if (!(typeof version === "string" || typeof version === "number") || !String(version).startsWith("3")) {
    throw new UsageError(
      `${shown} is not an OpenAPI 3.x document: it needs \`openapi: 3.0.x\` or \`openapi: 3.1.x\` at its top, found ${describeValue(version)}`,
    );
  }
}

/** Every local `$ref` must resolve: a dangling one is bad input, named here, not a crash later. */
function checkLocalRefs(document: Document, shown: string): void {
  for (const ref of new Set(refsIn(document))) {
    if (!ref.startsWith("#")) continue;
    try {
      lookup(document, ref);
    } catch {
      throw new UsageError(`${shown} has a $ref that does not resolve: ${describeValue(ref)}`);
    }
  }
}

function parseDocument(text: string, file: string, shown: string): unknown {
  try {
    // JSON is YAML; JSON.parse is only the fast path for the usual case (a .json bundle, like the baseline).
    if (file.endsWith(".json")) {
      try {
        return JSON.parse(text);
      } catch {}
    }
    return parse(text, { maxAliasCount: -1, uniqueKeys: false });
  } catch (error) {
    throw new UsageError(`${shown} is not valid YAML or JSON: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** Bundles a split document with Redocly, naming `shown` (never this machine's paths) in errors. */
async function bundleFile(file: string, shown: string, configDir?: string): Promise<Document> {
  const config =
    configDir && existsSync(path.join(configDir, "redocly.yaml"))
      ? path.join(configDir, "redocly.yaml")
      : path.join(repoRoot, "redocly.yaml");
  try {
    const { bundleContract } = await loadBundler();
    const { document } = await bundleContract(file, config);
    return document as Document;
  } catch (error) {
    const dir = path.dirname(file);
    const message = (error as Error).message.split(rel(dir)).join(".").split(dir).join(".");
    throw new UsageError(`cannot bundle ${shown}: ${message}`);
  }
}

/** Reads a contract file; bundles it when it refers to other files. `option` names the CLI option in errors. */
export async function loadFile(file: string, option = "file"): Promise<LoadedContract> {
  const relative = path.relative(process.cwd(), path.resolve(file));
  // Name the file as the user sees it from here, never by this machine's absolute path.
  const display = relative.startsWith("..") || path.isAbsolute(relative) ? path.basename(file) : relative;
  const shown = `${option} ${describeValue(display)}`;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `${shown} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let document = parseDocument(text, file, shown);
  checkOpenApi(document, shown);
  if (refsIn(document).some((ref) => !ref.startsWith("#"))) {
    document = await bundleFile(path.resolve(file), shown, gitTopLevel(path.dirname(path.resolve(file))));
    checkOpenApi(document, shown);
  }
  checkLocalRefs(document, shown);
  return { document, label: `file ${display}` };
}

/** A file at a git ref: read with `git show`; when it is split, the ref's tree is unpacked and bundled. */
export async function loadGitFile(ref: string, file: string, repoDir: string, option: string): Promise<LoadedContract> {
  const shown = `${option} ${describeValue(`${ref}:${file}`)}`;
  const label = `git ${ref}:${file} (${shortCommit(ref, repoDir)})`;
  const show = git(["show", `${ref}:${file}`], repoDir);
  if (show.status !== 0) throw new UsageError(`${shown}: ${file} is not in commit ${ref}`);
  const document = parseDocument(show.stdout.toString("utf8"), file, shown);
  checkOpenApi(document, shown);
  if (!refsIn(document).some((value) => !value.startsWith("#"))) {
    checkLocalRefs(document, shown);
    return { document, label };
  }
  const dir = await mkdtemp(path.join(tmpdir(), "contract-diff-"));
  try {
    const archive = git(["archive", "--format=tar", ref], repoDir);
    if (archive.status !== 0) throw new UsageError(`${shown}: git archive failed: ${archive.stderr.toString().trim()}`);
    const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout, maxBuffer: 256 * 1024 * 1024 });
    if (untar.status !== 0) throw new Error(`cannot unpack ${ref}: ${untar.stderr.toString().trim()}`);
    const bundled = await bundleFile(path.join(dir, file), shown, dir);
    checkOpenApi(bundled, shown);
    checkLocalRefs(bundled, shown);
    return { document: bundled, label };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bundles the working tree's contract of the repository at `repoDir`. */
export async function bundleWorkingTree(repoDir: string): Promise<LoadedContract> {
  const root = path.join(repoDir, CONTRACT_ROOT);
  if (!existsSync(root)) throw new UsageError(`no contract in the working tree: ${CONTRACT_ROOT} is missing`);
  const document = await bundleFile(root, "the working tree's contract", repoDir);
  return { document, label: "working tree" };
}

/**
 * `--base` or `--head`: an existing file; `<ref>:<path>` for a file at a git ref; a git ref alone for this
 * repository's contract at that commit. Anything else gets an error naming it.
 */
export async function loadContract(
  value: string,
  option: string,
  repoDir: string | undefined,
): Promise<LoadedContract> {
  if (existsSync(value)) return loadFile(value, option);
  const colon = value.indexOf(":");
  if (repoDir && colon > 0) {
    const ref = value.slice(0, colon);
    const file = value.slice(colon + 1).replace(/^\.?\//, "");
    if (gitRefExists(ref, repoDir)) return loadGitFile(ref, file, repoDir, option);
  }
  if (!repoDir)
    throw new UsageError(
      `${option} ${describeValue(value)} is not a file, and the current directory is not in a git repository to look it up as a ref`,
    );
  if (!gitRefExists(value, repoDir)) {
    throw new UsageError(
      `${option} ${describeValue(value)} is neither a file nor a git ref of this repository; give a file, a ref (HEAD~1, main, v1.2.0) or <ref>:<file> (main:openapi/openapi.yaml)`,
    );
  }
  return loadGitFile(value, CONTRACT_ROOT, repoDir, option);
}
