/**
 * Type-checks code samples against the real client: each sample becomes an ES module in a temporary
 * folder, "partner-api-client" maps to the repository's src/index.ts (and "partner-api-devkit/sandbox"
 * to devkit/src/sandbox/index.ts), and the TypeScript compiler
 * checks them with the repository's own strict settings.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { repoRoot } from "../paths.ts";
import { CLIENT_PACKAGE } from "./samples.ts";

export const clientEntryPath = path.join(repoRoot, "src", "index.ts");
/** The devkit's sandbox entry, imported by the getting-started sandbox sample as `partner-api-devkit/sandbox`. */
export const DEVKIT_SANDBOX_PACKAGE = "partner-api-devkit/sandbox";
export const sandboxEntryPath = path.join(repoRoot, "devkit", "src", "sandbox", "index.ts");

export interface SampleSource {
  /** Used as the file name: letters, digits, `-` and `_` only. */
  name: string;
  source: string;
}

export interface SampleDiagnostic {
  sample: string;
  line: number;
  message: string;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = path.join(repoRoot, "tsconfig.json");
  const read = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (read.error)
    throw new Error(`cannot read tsconfig.json: ${ts.flattenDiagnosticMessageText(read.error.messageText, "\n")}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, repoRoot);
  return {
    ...parsed.options,
    noEmit: true,
    // The samples live outside the repository: point type and package lookups back at it.
    typeRoots: [path.join(repoRoot, "node_modules", "@types")],
    paths: { [CLIENT_PACKAGE]: [clientEntryPath], [DEVKIT_SANDBOX_PACKAGE]: [sandboxEntryPath] },
  };
}

/** Compiles the samples together; returns the errors found in the samples themselves, one per problem. */
export async function typecheckSamples(samples: SampleSource[]): Promise<SampleDiagnostic[]> {
  if (samples.length === 0) throw new Error("typecheckSamples() needs at least one sample");
  const names = new Set<string>();
  for (const { name } of samples) {
    if (!/^[A-Za-z0-9_-]+$/.test(name))
      throw new Error(`sample name "${name}" must use letters, digits, "-" and "_" only`);
    if (names.has(name)) throw new Error(`two samples are named "${name}"`);
    names.add(name);
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "partner-docs-samples-"));
  try {
    const files = new Map<string, string>();
    for (const { name, source } of samples) {
      // .mts: an ES module wherever it lives, so top-level await compiles as it would in a partner's ESM project.
      const file = path.join(dir, `${name}.mts`);
      await writeFile(file, source);
      files.set(path.resolve(file), name);
    }
    const program = ts.createProgram({ rootNames: [...files.keys()], options: compilerOptions() });
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...program.getSemanticDiagnostics(),
      ...program.getSyntacticDiagnostics(),
    ];
    const result: SampleDiagnostic[] = [];
    for (const diagnostic of diagnostics) {
      if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
      const fileName = diagnostic.file ? path.resolve(diagnostic.file.fileName) : undefined;
      const sample = fileName ? files.get(fileName) : undefined;
      const line =
        diagnostic.file && diagnostic.start !== undefined
          ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
          : 0;
      // Errors outside the samples (the client's own sources, options) are reported too: they break every sample.
      result.push({
        sample: sample ?? (fileName ? path.relative(repoRoot, fileName) : "(compiler options)"),
        line,
        message,
      });
    }
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
