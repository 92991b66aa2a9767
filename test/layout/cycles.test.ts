/**
 * No import circle under devkit/src/: the modules form layers that import one way (for the sandbox: records,
 * store, engine, flows, HTTP, composition root). Every import counts, type-only ones included: a circle through
 * types is still a circle a reader has to hold in their head, and the next value import closes it for real.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";

/** Each module's relative imports (static, type-only, `export … from`, dynamic), as paths from the repository root. */
export function importGraph(dir: string): Map<string, string[]> {
  const files = readdirSync(path.join(repoRoot, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => /\.(ts|js)$/.test(name) && !name.endsWith(".d.ts"))
    .map((name) => path.join(dir, name).split(path.sep).join("/"));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(path.join(repoRoot, file), "utf8");
    const targets = ts
      .preProcessFile(text, true, true)
      .importedFiles.map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)))
      .filter((target) => known.has(target));
    graph.set(file, targets);
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

describe("imports under devkit/src/", () => {
  it("form no circle, type-only imports included", () => {
    expect(importCircles(importGraph("devkit/src"))).toEqual([]);
  });

  it("the check finds a circle, through a type-only import too", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
      ["e.ts", ["e.ts"]],
    ]);
    expect(importCircles(graph)).toEqual([["a.ts", "b.ts", "c.ts"], ["e.ts"]]);
    // The sandbox's engine imports its store: a module that imported the engine back would close a circle.
    const real = importGraph("devkit/src");
    expect(real.get("devkit/src/sandbox/engine.ts")).toContain("devkit/src/sandbox/store/tables.ts");
    real.set("devkit/src/sandbox/store/tables.ts", [
      ...(real.get("devkit/src/sandbox/store/tables.ts") ?? []),
      "devkit/src/sandbox/engine.ts",
    ]);
    expect(importCircles(real).flat()).toEqual(
      expect.arrayContaining(["devkit/src/sandbox/engine.ts", "devkit/src/sandbox/store/tables.ts"]),
    );
  });

  it("the flows see the sandbox through their own interface, never the engine", () => {
    const graph = importGraph("devkit/src");
    const flows = [...graph.keys()].filter((file) => file.startsWith("devkit/src/sandbox/flows/"));
    expect(flows.length).toBeGreaterThan(5);
    for (const file of flows) expect(graph.get(file), file).not.toContain("devkit/src/sandbox/engine.ts");
    expect(graph.get("devkit/src/sandbox/engine.ts")!.filter((target) => target.includes("/flows/"))).toEqual([]);
  });

  it("conformance/ imports nothing from cli/, and takes its router from contract/", () => {
    const graph = importGraph("devkit/src");
    const conformance = [...graph.entries()].filter(([file]) => file.startsWith("devkit/src/conformance/"));
    expect(conformance.flatMap(([, targets]) => targets).filter((target) => target.includes("/cli/"))).toEqual([]);
    expect(conformance.flatMap(([, targets]) => targets)).toContain("devkit/src/contract/router.ts");
  });
});
