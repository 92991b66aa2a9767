/**
 * Type-checks TypeScript modules written outside the repository's sources (the docs' code samples and snippets,
 * the module of contract examples) with the repository's own strict settings. Each module is an ES module (.mts)
 * in a temporary folder, compiled together in one program. The packages they import come either from this
 * repository's sources (`partner-api-client` is src/index.ts) or, with `installedIn`, from a project where the
 * packed tarballs are installed, as a partner gets them.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { repoRoot } from "./paths.ts";

/** The package entries a module may import, at their sources in this repository. */
export const SOURCE_PACKAGES: Readonly<Record<string, string>> = {
  "partner-api-client": path.join(repoRoot, "src", "index.ts"),
  "partner-api-client/types": path.join(repoRoot, "generated", "schema.d.ts"),
  "partner-api-devkit/sandbox": path.join(repoRoot, "devkit", "src", "sandbox", "index.ts"),
  "partner-api-devkit/msw": path.join(repoRoot, "devkit", "src", "msw", "index.ts"),
  // What the guide's MSW examples import besides (a partner installs them): their declarations here.
  msw: path.join(repoRoot, "node_modules", "msw", "lib", "core", "index.d.ts"),
  "msw/node": path.join(repoRoot, "node_modules", "msw", "lib", "node", "index.d.ts"),
  "msw/browser": path.join(repoRoot, "node_modules", "msw", "lib", "browser", "index.d.ts"),
  vitest: path.join(repoRoot, "node_modules", "vitest", "dist", "index.d.ts"),
};

export interface ModuleSource {
  /** Used as the file name: letters, digits, `-` and `_` only. */
  name: string;
  source: string;
  /** Where the source was taken from (its first line), so an error can point there. */
  origin?: { file: string; line: number };
}

export interface TypecheckError {
  /** The module's name, or for an error outside the modules the file (repository-relative) or "(compiler options)". */
  module: string;
  /** 1-based line in the module; 0 when the error has no position. */
  line: number;
  /** `file:line` in the module's origin when it has one, else `module:line`. */
  where: string;
  message: string;
}

export interface TypecheckOptions {
  /** More bare specifiers mapped to files, beside (or instead of) `SOURCE_PACKAGES`; not with `installedIn`. */
  packages?: Readonly<Record<string, string>>;
  /** A project folder whose node_modules hold the installed packages: the modules are compiled inside it. */
  installedIn?: string;
}

function compilerOptions(options: TypecheckOptions): ts.CompilerOptions {
  const configPath = path.join(repoRoot, "tsconfig.json");
  const read = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (read.error)
    throw new Error(`cannot read tsconfig.json: ${ts.flattenDiagnosticMessageText(read.error.messageText, "\n")}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, repoRoot);
  const packages = { ...SOURCE_PACKAGES, ...options.packages };
  return {
    ...parsed.options,
    noEmit: true,
    // The modules live outside the repository: point type lookups back at it.
    typeRoots: [path.join(repoRoot, "node_modules", "@types")],
    ...(options.installedIn
      ? {}
      : { paths: Object.fromEntries(Object.entries(packages).map(([name, file]) => [name, [file]])) }),
  };
}

/** Compiles the modules together; returns the errors, one per problem (none: they all compile). */
export async function typecheckModules(
  modules: readonly ModuleSource[],
  options: TypecheckOptions = {},
): Promise<TypecheckError[]> {
  if (modules.length === 0) throw new Error("typecheckModules() needs at least one module");
  if (options.installedIn && options.packages)
    throw new Error("typecheckModules(): `packages` maps sources; an `installedIn` project resolves its own");
  const byName = new Map<string, ModuleSource>();
  for (const module of modules) {
    if (!/^[A-Za-z0-9_-]+$/.test(module.name))
      throw new Error(`module name "${module.name}" must use letters, digits, "-" and "_" only`);
    if (byName.has(module.name)) throw new Error(`two modules are named "${module.name}"`);
    byName.set(module.name, module);
  }
  const dir = await mkdtemp(path.join(options.installedIn ?? os.tmpdir(), ".typecheck-"));
  try {
    const files = new Map<string, ModuleSource>();
    for (const module of modules) {
      // .mts: an ES module wherever it lives, so top-level await compiles as it would in a partner's ESM project.
      const file = path.join(dir, `${module.name}.mts`);
      await writeFile(file, module.source);
      files.set(path.resolve(file), module);
    }
    const program = ts.createProgram({ rootNames: [...files.keys()], options: compilerOptions(options) });
    // The modules' own diagnostics: the checker reads of the packages what the modules use. Every file of the
    // packages' sources checked whole took most of the time, and `npm run typecheck` checks them.
    const checked = [...files.keys()].flatMap((file) => program.getSourceFile(file) ?? []);
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...checked.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
    ];
    const errors: TypecheckError[] = [];
    for (const diagnostic of diagnostics) {
      if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
      const fileName = diagnostic.file ? path.resolve(diagnostic.file.fileName) : undefined;
      const module = fileName ? files.get(fileName) : undefined;
      const line =
        diagnostic.file && diagnostic.start !== undefined
          ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
          : 0;
      // Errors outside the modules (the options, what every file shares) are reported too: they break every module.
      const name = module?.name ?? (fileName ? path.relative(repoRoot, fileName) : "(compiler options)");
      errors.push({
        module: name,
        line,
        where: module?.origin ? `${module.origin.file}:${module.origin.line + line - 1}` : `${name}:${line}`,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"),
      });
    }
    return errors;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
