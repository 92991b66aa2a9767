/**
 * Rooms one can hold in one's head, measured with the TypeScript parser over every hand-written .ts, .tsx, .js and
 * .mjs file (generated/, fixtures and declaration files excepted): no file over 600 lines, no function-like node
 * with a body (functions, methods, arrow functions, describe callbacks) over 120 lines, no class over 400.
 */
import type ts from "typescript";
import { describe, expect, it } from "vitest";
import { repositoryFiles } from "../helpers/passed-files.ts";
import { perFile, typeScript } from "../helpers/source-facts.ts";

export const LIMITS = { file: 600, function: 120, class: 400 } as const;
export type Kind = keyof typeof LIMITS;

export interface Offender {
  file: string;
  /** The 1-based line the file, function or class starts on. */
  line: number;
  kind: Kind;
  /** Its size in lines. */
  lines: number;
  name: string;
}

/** The hand-written sources: tracked or new (not ignored), generated/ (both), fixtures and .d.ts left out. */
export function handWrittenFiles(): string[] {
  return repositoryFiles([".ts", ".tsx", ".js", ".mjs"]).filter(
    (file) =>
      !file.startsWith("generated/") &&
      !file.startsWith("devkit/generated/") &&
      !file.split("/").includes("fixtures") &&
      !file.endsWith(".d.ts"),
  );
}

/** What in one file's text is over the limits. */
export function measure(file: string, text: string): Offender[] {
  const ts = typeScript();
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: Offender[] = [];
  const fileLines = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  if (fileLines > LIMITS.file) found.push({ file, line: 1, kind: "file", lines: fileLines, name: "" });
  const visit = (node: ts.Node) => {
    const kind: Kind | undefined =
      ts.isFunctionLike(node) && "body" in node && node.body !== undefined
        ? "function"
        : ts.isClassLike(node)
          ? "class"
          : undefined;
    if (kind !== undefined) {
      const start = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - start + 1;
      const name = (node as { name?: ts.Node }).name?.getText(source) ?? "";
      if (lines > LIMITS[kind]) found.push({ file, line: start, kind, lines, name });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const describeOffender = (o: Offender) =>
  `${o.file}:${o.line} ${o.kind}${o.name === "" ? "" : ` ${o.name}`}: ${o.lines} lines (limit ${LIMITS[o.kind]})`;

describe("rooms one can hold in one's head", () => {
  // Parsed once per text: a re-run reads only the files that changed (test/helpers/source-facts.ts).
  const offenders = perFile("rooms", handWrittenFiles(), measure, JSON.stringify(LIMITS)).flat();

  it(`no file over ${LIMITS.file} lines, no function over ${LIMITS.function}, no class over ${LIMITS.class}`, () => {
    const over = offenders.map(describeOffender);
    expect(over, `over the limits:\n${over.join("\n")}`).toEqual([]);
  });

  it("measures what it says: a file, a function (arrow and callback too) and a class past their limits", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    expect(measure("a.ts", `function f() {\n${body(118)}\n}\n`)).toEqual([]);
    expect(measure("a.ts", `function f() {\n${body(119)}\n}\n`)).toEqual([
      { file: "a.ts", line: 1, kind: "function", lines: 121, name: "f" },
    ]);
    expect(measure("a.js", `x;\ndescribe("d", () => {\n${body(125)}\n});\n`).map(describeOffender)).toEqual([
      "a.js:2 function: 127 lines (limit 120)",
    ]);
    const methods = Array.from({ length: 5 }, (_, i) => `  m${i}() {\n${body(90)}\n  }`).join("\n");
    expect(measure("c.ts", `class C {\n${methods}\n}\n`).map(describeOffender)).toEqual([
      "c.ts:1 class C: 462 lines (limit 400)",
    ]);
    expect(measure("long.mjs", `${"x;\n".repeat(601)}`).map(describeOffender)).toEqual([
      "long.mjs:1 file: 601 lines (limit 600)",
    ]);
    expect(measure("ok.mjs", `${"x;\n".repeat(600)}`)).toEqual([]);
  });
});
