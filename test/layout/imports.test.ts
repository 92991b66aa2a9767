/**
 * Imports go one way: scripts → devkit → client, never back. The client (`src/`, `partner-api-client`) knows
 * neither the devkit nor the repository's tools; the devkit (`devkit/`, `partner-api-devkit`) uses the client only as
 * the package `partner-api-client` (its peer dependency) and never reaches into `scripts/`; `scripts/` uses the
 * devkit only through the package's public entries (`partner-api-devkit/cli`, …); `bench/` measures what a partner
 * gets. And every tool of the repository resolves the two packages from source under one export condition.
 */
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_CONDITION, SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";
import vitestConfig from "../../vitest.config.ts";
import { importSpecifiers, typeScript } from "../helpers/source-facts.ts";

interface Import {
  /** The importing file, from the repository root. */
  file: string;
  specifier: string;
  /** A relative import's target from the repository root; undefined for a package or a built-in. */
  target?: string;
}

/** Every module the TypeScript files import: static, type-only, `export … from` and dynamic `import()`. */
function importsOfFiles(files: readonly string[]): Import[] {
  return importSpecifiers(files).flatMap((specifiers, index) => {
    const file = files[index]!;
    return specifiers.map((specifier) => ({
      file,
      specifier,
      target: specifier.startsWith(".")
        ? path
            .relative(repoRoot, path.resolve(repoRoot, path.dirname(file), specifier))
            .split(path.sep)
            .join("/")
        : undefined,
    }));
  });
}

const importsOf = (file: string): Import[] => importsOfFiles([file]);

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.split(path.sep).includes("node_modules"))
    .map((name) => path.join(dir, name).split(path.sep).join("/"));
}

const importsIn = (dir: string): Import[] => importsOfFiles(tsFiles(dir));
const show = (found: Import) => `${found.file} imports ${found.target ?? found.specifier}`;

const readTsconfig = () => typeScript().readConfigFile(path.join(repoRoot, "tsconfig.json"), typeScript().sys.readFile);

interface Manifest {
  version: string;
  scripts?: Record<string, string>;
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

const readManifest = (file: string) => JSON.parse(readFileSync(path.join(repoRoot, file), "utf8")) as Manifest;
const client = readManifest("package.json");
const devkit = readManifest("devkit/package.json");

/** `partner-api-devkit/cli` → true when the package lists that entry in its "exports". */
function isPublicEntry(specifier: string, name: string, manifest: Manifest): boolean {
  if (specifier !== name && !specifier.startsWith(`${name}/`)) return false;
  return Object.hasOwn(manifest.exports, `.${specifier.slice(name.length)}`);
}

/** The npm package a bare specifier names (`ajv/dist/2020.js` → `ajv`, `@a/b/c` → `@a/b`). */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** The benchmark that measures a module of the client from inside (its time limits, not public), and that module. */
const MEASURED_INSIDE: Record<string, string> = { "bench/abort-signals.ts": "src/timeout.ts" };

/** The repository's two packages, by name. */
const PACKAGES: readonly (readonly [string, Manifest])[] = [
  ["partner-api-client", client],
  ["partner-api-devkit", devkit],
];

/** A specifier that reaches into either package past its "exports" (`partner-api-client/src/…`). */
const throughPrivateEntry = (specifier: string) =>
  PACKAGES.some(([name, manifest]) => packageOf(specifier) === name && !isPublicEntry(specifier, name, manifest));

const isBuiltin = (specifier: string) => specifier.startsWith("node:") || builtinModules.includes(specifier);

/** The files of the repository's generated/ the devkit's source may import: the contracts the msw entry bundles as data. */
const DEVKIT_BUNDLED = ["generated/openapi.json", "generated/sandbox.json"];

describe("imports go one way: scripts → devkit → client", () => {
  it("the client (src/) imports src/, generated/, openapi-fetch and node built-ins: nothing of the devkit or the tools", () => {
    const offending = importsIn("src").filter(({ specifier, target }) =>
      target === undefined
        ? !isBuiltin(specifier) && packageOf(specifier) !== "openapi-fetch"
        : !target.startsWith("src/") && !target.startsWith("generated/"),
    );
    expect(offending.map(show)).toEqual([]);
  });

  it("the devkit's source imports itself, its declared packages and the client as partner-api-client, never src/, scripts/ or the repository's generated types", () => {
    const declared = new Set([
      ...Object.keys(devkit.dependencies ?? {}),
      ...Object.keys(devkit.peerDependencies ?? {}),
    ]);
    const offending = importsIn("devkit/src").filter(({ specifier, target }) => {
      if (target === undefined) {
        if (isBuiltin(specifier)) return false;
        if (packageOf(specifier) === "partner-api-client")
          return !isPublicEntry(specifier, "partner-api-client", client);
        return !declared.has(packageOf(specifier));
      }
      // The control contract's types are the devkit's own (devkit/generated/, written by `npm run generate`; the
      // build ships them beside its declarations). The msw entry bundles both contracts as data (a browser has no
      // files to read them from), so the package carries them too.
      return (
        !["devkit/src/", "devkit/generated/"].some((dir) => target.startsWith(dir)) && !DEVKIT_BUNDLED.includes(target)
      );
    });
    expect(offending.map(show)).toEqual([]);
  });

  it("the devkit's build script stays inside devkit/", () => {
    const offending = importsIn("devkit/scripts").filter(
      ({ target }) => target !== undefined && !target.startsWith("devkit/"),
    );
    expect(offending.map(show)).toEqual([]);
  });

  it("scripts/ use the client and the devkit only through their public entries, and never bench/ or test/", () => {
    const offending = importsIn("scripts").filter(({ specifier, target }) =>
      target === undefined
        ? throughPrivateEntry(specifier)
        : ["src/", "devkit/", "bench/", "test/"].some((dir) => target.startsWith(dir)),
    );
    expect(offending.map(show)).toEqual([]);
  });

  it("bench/ uses itself, scripts/lib/, the devkit, the client as partner-api-client and the contract's examples; of src/, only the module a micro-benchmark measures", () => {
    const offending = importsIn("bench").filter(({ file, specifier, target }) =>
      target === undefined
        ? throughPrivateEntry(specifier)
        : !["bench/", "scripts/lib/", "devkit/src/", "devkit/scripts/"].some((dir) => target.startsWith(dir)) &&
          target !== "generated/examples.ts" &&
          MEASURED_INSIDE[file] !== target,
    );
    expect(offending.map(show)).toEqual([]);
  });

  it("nothing outside test/ imports test/", () => {
    const offending = ["src", "devkit", "scripts", "bench"]
      .flatMap(importsIn)
      .filter(({ target }) => target?.startsWith("test/"));
    expect(offending.map(show)).toEqual([]);
  });

  it("the check sees imports of every kind: relative, package, type-only", () => {
    const specifiers = (file: string) => importsOf(file).map((found) => found.target ?? found.specifier);
    expect(specifiers("bench/cli.ts")).toEqual(expect.arrayContaining(["partner-api-devkit/cli", "bench/harness.ts"]));
    expect(specifiers("devkit/src/webhooks/deliver.ts")).toContain("partner-api-client");
    expect(specifiers("devkit/src/sandbox/index.ts")).toContain("devkit/generated/sandbox.js");
    expect(specifiers("scripts/lib/generate.ts")).toContain("partner-api-client");
    expect(throughPrivateEntry("partner-api-client/src/http-methods.ts")).toBe(true);
    expect(throughPrivateEntry("partner-api-client")).toBe(false);
    expect(specifiers("scripts/mock.ts")).toContain("partner-api-devkit/cli");
    expect(isPublicEntry("partner-api-devkit/cli", "partner-api-devkit", devkit)).toBe(true);
    expect(isPublicEntry("partner-api-devkit/src/cli/runner.ts", "partner-api-devkit", devkit)).toBe(false);
  });
});

describe("the packages resolve from source in the repository, built elsewhere", () => {
  it("every export of both packages has a first branch under the source condition (under `types` for a types-only entry), pointing at files that exist", () => {
    const checked: string[] = [];
    for (const [dir, manifest] of [
      [".", client],
      ["devkit", devkit],
    ] as const) {
      for (const [entry, target] of Object.entries(manifest.exports)) {
        if (typeof target === "string") continue; // package.json, the contracts: files, not code
        // A types-only entry (./types) puts `types` first, as publint asks, and the source condition first under it.
        const outer = target as Record<string, unknown>;
        const typesOnly = Object.keys(outer).length === 1 && typeof outer.types === "object";
        const conditions = (typesOnly ? outer.types : outer) as Record<string, unknown>;
        expect(Object.keys(conditions)[0], `${dir} ${entry}`).toBe(SOURCE_CONDITION);
        const source = conditions[SOURCE_CONDITION];
        const files = typeof source === "string" ? [source] : Object.values(source as Record<string, string>);
        for (const file of files) {
          expect(file, `${dir} ${entry}`).toMatch(/^\.\/(src|generated)\/.*\.ts$/);
          expect(() => readFileSync(path.join(repoRoot, dir, file)), `${dir} ${entry} → ${file}`).not.toThrow();
        }
        checked.push(`${dir} ${entry}`);
      }
    }
    expect(checked).toEqual([". .", ". ./types", "devkit ./cli", "devkit ./sandbox", "devkit ./msw"]);
  });

  it("tsc, vitest and every node run set the condition", () => {
    const tsconfig = readTsconfig().config;
    expect(tsconfig.compilerOptions.customConditions).toEqual([SOURCE_CONDITION]);
    expect(vitestConfig.ssr?.resolve?.conditions).toContain(SOURCE_CONDITION);
    expect(vitestConfig.environments?.__vitest__?.resolve?.conditions).toContain(SOURCE_CONDITION);
    expect(SOURCE_NODE_ARGS).toContain(`--conditions=${SOURCE_CONDITION}`);
    const typeScriptScripts = [client, devkit].flatMap((manifest) =>
      Object.entries(manifest.scripts ?? {}).filter(([, line]) => /\.ts\b/.test(line)),
    );
    expect(typeScriptScripts.length).toBeGreaterThan(10);
    const without = typeScriptScripts.filter(
      ([, line]) => !/^node --conditions=partner-api-source \S+\.ts$/.test(line),
    );
    expect(without.map(([name]) => name)).toEqual([]);
  });
});

describe("scripts run on Node's own TypeScript support: no loader", () => {
  it("tsconfig.json allows only syntax Node can erase, and type imports that say so", () => {
    const { compilerOptions } = readTsconfig().config;
    expect(compilerOptions).toMatchObject({ erasableSyntaxOnly: true, verbatimModuleSyntax: true });
  });

  it("no npm script, CI step, workflow or file of the repository's own starts tsx, and neither package depends on it", () => {
    const places = [
      ...[client, devkit].flatMap((manifest) => Object.values(manifest.scripts ?? {})),
      readFileSync(path.join(repoRoot, ".ci/run"), "utf8"),
      ...readdirSync(path.join(repoRoot, ".github/workflows")).map((name) =>
        readFileSync(path.join(repoRoot, ".github/workflows", name), "utf8"),
      ),
    ];
    expect(places.filter((text) => /\btsx\b/.test(text))).toEqual([]);
    for (const manifest of [client, devkit])
      expect({ ...manifest.dependencies, ...manifest.devDependencies }).not.toHaveProperty("tsx");
    const imported = ["src", "devkit", "scripts", "bench", "test"]
      .flatMap(importsIn)
      .filter(({ specifier }) => packageOf(specifier) === "tsx");
    expect(imported.map(show)).toEqual([]);
  });
});

describe("the devkit's links", () => {
  it("the devkit's peer dependency is this client's exact version, linked from the workspace here", () => {
    // MSW too, optional: partners who use partner-api-devkit/msw bring their own (its exact version a dev dependency here).
    expect(devkit.peerDependencies).toEqual({
      "partner-api-client": client.version,
      msw: `^${devkit.devDependencies?.msw}`,
    });
    expect(devkit.peerDependenciesMeta).toEqual({ msw: { optional: true } });
    expect(devkit.devDependencies?.["partner-api-client"]).toBe("file:..");
    expect(devkit.dependencies).not.toHaveProperty("partner-api-client");
  });
});
