/**
 * No import circle anywhere in the repository: the modules form layers that import one way (for the sandbox:
 * records, store, engine, flows, HTTP, composition root; across packages: scripts → devkit → client). Every import
 * counts, type-only ones included: a circle through types is still a circle a reader has to hold in their head, and
 * the next value import closes it for real. An import of either package by its name (`partner-api-client`,
 * `partner-api-devkit/cli`) counts as an import of the source files its "exports" name under the source condition.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_CONDITION } from "../../scripts/lib/source.ts";
import { importSpecifiers } from "../helpers/source-facts.ts";

/** The folders of modules, hand-written and generated: every file of the repository that imports or is imported. */
const MODULE_FOLDERS = [
  "src",
  "generated",
  "devkit/src",
  "devkit/scripts",
  "devkit/generated",
  "scripts",
  "bench",
  "test",
];
const MODULE_FILE = /\.(ts|mts|js|mjs)$/;

/** Each package of the repository by name, with its folder from the repository root. */
const PACKAGES = new Map([
  ["partner-api-client", "."],
  ["partner-api-devkit", "devkit"],
]);

function modulesIn(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => MODULE_FILE.test(name) && !name.split(path.sep).includes("node_modules"))
    .map((name) => path.posix.join(dir, name.split(path.sep).join("/")));
}

/** The source files an export's branch under the source condition names (several for `node`/`browser` branches). */
function sourceFiles(branch: unknown): string[] {
  if (typeof branch === "string") return [branch];
  if (branch === null || typeof branch !== "object") return [];
  const record = branch as Record<string, unknown>;
  if (SOURCE_CONDITION in record) return Object.values(record).length > 0 ? leaves(record[SOURCE_CONDITION]) : [];
  return Object.values(record).flatMap(sourceFiles);
}

const leaves = (value: unknown): string[] =>
  typeof value === "string"
    ? [value]
    : value !== null && typeof value === "object"
      ? Object.values(value).flatMap(leaves)
      : [];

/** `partner-api-devkit/cli` → the files (from the repository root) its export resolves to from source; [] for others. */
function packageTargets(specifier: string): string[] {
  const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
  const dir = PACKAGES.get(name);
  if (dir === undefined) return [];
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, dir, "package.json"), "utf8"));
  const entry = `.${specifier.slice(name.length)}`;
  return sourceFiles(manifest.exports?.[entry])
    .filter((file) => file.startsWith("./"))
    .map((file) => path.posix.join(dir, file));
}

/** A relative specifier's module: the file itself, or the `.ts` / `.d.ts` a `.js` specifier stands for. */
function relativeTarget(file: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  const stem = target.replace(/\.(js|mjs)$/, "");
  return [target, `${stem}.ts`, `${stem}.d.ts`, `${stem}.mts`].find((candidate) => known.has(candidate));
}

/**
 * Each module's imports (static, type-only, `export … from`, dynamic, JSDoc `import()` types of a JavaScript file
 * are not counted), as paths from the repository root, for the modules under `dirs`.
 */
export function importGraph(dirs: readonly string[] = MODULE_FOLDERS): Map<string, string[]> {
  const files = dirs.flatMap(modulesIn);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  const specifiers = importSpecifiers(files);
  for (const [index, file] of files.entries()) {
    const targets = specifiers[index]!.flatMap((specifier) =>
      specifier.startsWith(".") ? (relativeTarget(file, specifier, known) ?? []) : packageTargets(specifier),
    ).filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one module (or a module importing itself): the import circles. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/**
 * The graph of devkit/src's folders (`sandbox`, `arazzo`, …; a file directly under devkit/src is a node of its own):
 * an edge where a module of one imports a module of another.
 */
function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const prefix = "devkit/src/";
  const folderOf = (file: string) => {
    const rest = file.slice(prefix.length);
    return rest.includes("/") ? rest.slice(0, rest.indexOf("/")) : rest;
  };
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    if (!file.startsWith(prefix)) continue;
    const from = folderOf(file);
    const edges = folders.get(from) ?? new Set<string>();
    folders.set(from, edges);
    for (const target of targets)
      if (target.startsWith(prefix) && folderOf(target) !== from) edges.add(folderOf(target));
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges]]));
}

describe("imports across the repository", () => {
  const graph = importGraph();

  it("form no circle, type-only imports and imports by package name included", () => {
    expect(graph.size).toBeGreaterThan(400);
    expect(importCircles(graph)).toEqual([]);
  });

  it("devkit/src's folders import one way (the sandbox uses the Arazzo runner, never the other way)", () => {
    const folders = folderGraph(graph);
    expect(folders.get("sandbox")).toContain("arazzo");
    expect(importCircles(folders)).toEqual([]);
  });

  it("the check finds a circle, through a type-only import too", () => {
    const made = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
      ["e.ts", ["e.ts"]],
    ]);
    expect(importCircles(made)).toEqual([["a.ts", "b.ts", "c.ts"], ["e.ts"]]);
    // The sandbox's engine imports its store: a module that imported the engine back would close a circle.
    const real = new Map(graph);
    expect(real.get("devkit/src/sandbox/engine.ts")).toContain("devkit/src/sandbox/store/tables.ts");
    real.set("devkit/src/sandbox/store/tables.ts", [
      ...(real.get("devkit/src/sandbox/store/tables.ts") ?? []),
      "devkit/src/sandbox/engine.ts",
    ]);
    expect(importCircles(real).flat()).toEqual(
      expect.arrayContaining(["devkit/src/sandbox/engine.ts", "devkit/src/sandbox/store/tables.ts"]),
    );
  });

  it("the graph follows imports by package name, type-only ones, .js specifiers of .ts and .d.ts files, across folders", () => {
    // scripts/ import the client as `partner-api-client` (both entries, node and browser) and the devkit's entries.
    expect(graph.get("scripts/lib/generate.ts")).toEqual(
      expect.arrayContaining(["src/index.ts", "src/index.web.ts", "devkit/src/cli/kit.ts"]),
    );
    // A type-only import of a declaration file through its .js name.
    expect(graph.get("devkit/src/sandbox/index.ts")).toContain("devkit/generated/sandbox.d.ts");
    expect(graph.get("src/client.ts")).toContain("generated/schema.d.ts");
    // So a client module that imported a script back (by path) would close a circle through the package's name.
    const real = new Map(graph);
    real.set("src/http-methods.ts", [...(real.get("src/http-methods.ts") ?? []), "scripts/lib/generate.ts"]);
    expect(importCircles(real).flat()).toEqual(expect.arrayContaining(["src/index.ts", "scripts/lib/generate.ts"]));
    // And the folder check sees the Arazzo runner importing the sandbox back.
    real.set("devkit/src/arazzo/runner.ts", [
      ...real.get("devkit/src/arazzo/runner.ts")!,
      "devkit/src/sandbox/index.ts",
    ]);
    expect(importCircles(folderGraph(real)).flat()).toEqual(expect.arrayContaining(["arazzo", "sandbox"]));
  });

  it("the flows see the sandbox through their own interface, never the engine", () => {
    const flows = [...graph.keys()].filter((file) => file.startsWith("devkit/src/sandbox/flows/"));
    expect(flows.length).toBeGreaterThan(5);
    for (const file of flows) expect(graph.get(file), file).not.toContain("devkit/src/sandbox/engine.ts");
    expect(graph.get("devkit/src/sandbox/engine.ts")!.filter((target) => target.includes("/flows/"))).toEqual([]);
  });

  it("conformance/ imports nothing from cli/, and takes its router from contract/", () => {
    const conformance = [...graph.entries()].filter(([file]) => file.startsWith("devkit/src/conformance/"));
    expect(conformance.flatMap(([, targets]) => targets).filter((target) => target.includes("/cli/"))).toEqual([]);
    expect(conformance.flatMap(([, targets]) => targets)).toContain("devkit/src/contract/router.ts");
  });
});
