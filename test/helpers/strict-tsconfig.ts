import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "../../scripts/lib/paths.ts";

/**
 * The compiler options of a partner's project that checks the installed packages strictly: `strict`, NodeNext, and
 * `skipLibCheck: false`, so every declaration a package ships is compiled. Node's own types come from this
 * repository's copy (the project installs only the packages under test).
 */
export function strictConsumerOptions(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    strict: true,
    noEmit: true,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023", "DOM"],
    types: ["node"],
    typeRoots: [path.join(repoRoot, "node_modules", "@types")],
    skipLibCheck: false,
    ...extra,
  };
}

/**
 * Every declaration the installed packages ship, for `include`: those the program reaches and the rest, so an
 * import of a file a package does not ship is an error, not a type silently `any`. partner-api-devkit/msw's
 * declarations import MSW, an optional peer such a project does not install: they are checked in a project that
 * does (test/msw/installed.slow.test.ts).
 */
export function installedDeclarations(packages: readonly string[]): { include: string[]; exclude: string[] } {
  return {
    include: packages.map((name) => `node_modules/${name}/dist/**/*.d.ts`),
    exclude: packages.includes("partner-api-devkit")
      ? [
          "node_modules/partner-api-devkit/dist/msw.d.ts",
          "node_modules/partner-api-devkit/dist/types/devkit/src/msw/**",
        ]
      : [],
  };
}

/** Writes `app`'s tsconfig (strict, `files` and every declaration of `packages`) and runs this repository's tsc 5.9 there: its output, "" when clean. */
export async function strictTypeCheck(
  app: string,
  files: string[],
  packages: readonly string[],
  extra: Record<string, unknown> = {},
): Promise<string> {
  writeFileSync(
    path.join(app, "tsconfig.json"),
    JSON.stringify({ compilerOptions: strictConsumerOptions(extra), files, ...installedDeclarations(packages) }),
  );
  const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const checked = await promisify(execFile)(process.execPath, [tsc, "-p", app], { cwd: app, encoding: "utf8" }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
  );
  return checked.stdout;
}
