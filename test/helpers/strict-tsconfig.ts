import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "../../scripts/lib/paths.ts";

/**
 * The compiler options of a partner's project that checks the installed packages strictly: `strict`, NodeNext, and
 * `skipLibCheck: false`, so every declaration a package ships is compiled. Node's own types come from this
 * repository's copy (the project installs only the packages under test). TypeScript's own lib files
 * (`skipDefaultLibCheck`) are not what is checked: about a quarter of the check's CPU.
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
    skipDefaultLibCheck: true,
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

/** The compilers a partner may check with: this repository's TypeScript 5.9 and its TypeScript 7 (`typescript7`). */
export const TSC = {
  "5.9": path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"),
  "7": path.join(repoRoot, "node_modules", "typescript7", "bin", "tsc"),
} as const;

/**
 * Writes `app`'s tsconfig (strict, `files` and every declaration of `packages`) and runs `compiler` there (TypeScript
 * 5.9 unless told): its output, "" when clean.
 */
export async function strictTypeCheck(
  app: string,
  files: string[],
  packages: readonly string[],
  extra: Record<string, unknown> = {},
  compiler: keyof typeof TSC = "5.9",
): Promise<string> {
  writeFileSync(
    path.join(app, "tsconfig.json"),
    JSON.stringify({ compilerOptions: strictConsumerOptions(extra), files, ...installedDeclarations(packages) }),
  );
  const checked = await promisify(execFile)(process.execPath, [TSC[compiler], "-p", app], {
    cwd: app,
    encoding: "utf8",
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
  return checked.stdout;
}
