/**
 * `npm run diff -- --base <git-ref | file> [--head <file>] [--format text|markdown] [--allow <file>]`
 *
 * Compares two bundled contracts and classifies every change as breaking, compatible or
 * documentation-only. Exit 0: nothing breaking, or every breaking change acknowledged (major bump of
 * info.version, or an allowlist entry with a reason). Exit 1: unacknowledged breaking change. Exit 2: bad input.
 */
import path from "node:path";
import { ALLOWLIST_FILE, readAllowlist } from "./lib/diff/acknowledge.ts";
import { bundleWorkingTree, DiffInputError, gitTopLevel, loadBase, loadBundledFile } from "./lib/diff/load.ts";
import { countLine, diffContracts, formatMarkdown, formatText } from "./lib/diff/report.ts";
import { fail, formatDuration, step } from "./lib/log.ts";
import { repoRoot } from "./lib/paths.ts";

const USAGE =
  "usage: npm run diff -- --base <git-ref | bundled file> [--head <bundled file>] [--format text|markdown] [--allow <allowlist file>]";

interface Options {
  base: string;
  head?: string;
  format: "text" | "markdown";
  allow?: string;
}

function parseArgs(args: string[]): Options {
  const values: Partial<Record<"base" | "head" | "format" | "allow", string>> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const match = /^--(base|head|format|allow)(?:=(.*))?$/.exec(arg);
    if (!match) fail(`unknown argument "${arg}"; ${USAGE}`, 2);
    const name = match[1] as keyof typeof values;
    const value = match[2] ?? args[++i];
    if (value === undefined || value === "") fail(`--${name} needs a value; ${USAGE}`, 2);
    values[name] = value;
  }
  if (!values.base) fail(`--base is required; ${USAGE}`, 2);
  const format = values.format ?? "text";
  if (format !== "text" && format !== "markdown") fail(`--format "${format}" is not one of text, markdown`, 2);
  return { base: values.base, head: values.head, format, allow: values.allow };
}

const started = performance.now();
const options = parseArgs(process.argv.slice(2));
const repoDir = gitTopLevel(process.cwd());
const workDir = repoDir ?? repoRoot;

try {
  const base = await step(`load base ${options.base}`, () => loadBase(options.base, repoDir));
  const head = await step(options.head ? `load head ${options.head}` : "bundle the working tree (head)", () =>
    options.head ? loadBundledFile(options.head, "--head") : bundleWorkingTree(workDir),
  );
  const allowFile = options.allow ?? path.join(workDir, ALLOWLIST_FILE);
  const allowlist = await readAllowlist(allowFile, options.allow ?? ALLOWLIST_FILE, options.allow !== undefined);
  const report = await step("compare", () => diffContracts(base, head, allowlist));
  const took = formatDuration(performance.now() - started);
  if (options.format === "markdown") {
    process.stdout.write(formatMarkdown(report));
    process.stderr.write(`compared ${report.base.label} with ${report.head.label}: ${countLine(report)} (${took})\n`);
  } else {
    process.stdout.write(formatText(report));
    console.log(`compared ${report.base.label} with ${report.head.label} in ${took}`);
  }
  if (report.unacknowledged.length > 0) {
    if (options.format === "markdown")
      process.stderr.write(`error: ${report.unacknowledged.length} breaking change(s) not acknowledged\n`);
    process.exitCode = 1;
  }
} catch (error) {
  if (error instanceof DiffInputError) fail(error.message, 2);
  fail((error as Error).message);
}
