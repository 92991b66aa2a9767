/**
 * The public surface is written once: src/index.web.ts (the root for browsers and workers) lists it name by name,
 * and src/index.ts (the root for Node) is that surface (`export *`) and the node:crypto webhook functions, whose
 * Web Crypto twins (`…Async`) the web root has instead. Nothing else is written in the Node root.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";

/** The names the Node root exports that need node:crypto (src/webhooks/node.ts). */
const NODE_ONLY = ["constructWebhookEvent", "signWebhookPayload", "verifyWebhookSignature"];

function exportedNames(program: ts.Program, file: string): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} is not in the program`);
  const module = checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${file} is not a module`);
  return checker
    .getExportsOfModule(module)
    .map((symbol) => symbol.name)
    .sort();
}

/** The export declarations written in a module: `*` for `export * from`, else each name it lists. */
function writtenExports(file: string): { from: string; names: string[] }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  return source.statements.filter(ts.isExportDeclaration).map((declaration) => ({
    from: (declaration.moduleSpecifier as ts.StringLiteral).text,
    names:
      declaration.exportClause && ts.isNamedExports(declaration.exportClause)
        ? declaration.exportClause.elements.map((element) => element.name.text)
        : ["*"],
  }));
}

describe("the package roots", () => {
  it("the Node root writes only the node:crypto functions and takes the rest from the web root", () => {
    expect(writtenExports(path.join(repoRoot, "src", "index.ts"))).toEqual([
      { from: "./index.web.ts", names: ["*"] },
      { from: "./webhooks/node.ts", names: NODE_ONLY },
    ]);
    const web = writtenExports(path.join(repoRoot, "src", "index.web.ts"));
    expect(web.flatMap(({ names }) => names)).not.toContain("*");
    expect(web.map(({ from }) => from)).not.toContain("./webhooks/node.ts");
  });

  it("export the same names, but for the node:crypto webhook functions", () => {
    const nodeRoot = path.join(repoRoot, "src", "index.ts");
    const webRoot = path.join(repoRoot, "src", "index.web.ts");
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(repoRoot, "tsconfig.json"),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
        },
      },
    );
    const program = ts.createProgram([nodeRoot, webRoot], config!.options);
    const node = exportedNames(program, nodeRoot);
    const web = exportedNames(program, webRoot);
    expect(node).toEqual(expect.arrayContaining(NODE_ONLY));
    const missing = node.filter((name) => !NODE_ONLY.includes(name) && !web.includes(name));
    const extra = web.filter((name) => !node.includes(name));
    expect(missing, "exported by src/index.ts but not listed in src/index.web.ts").toEqual([]);
    expect(extra, "exported by src/index.web.ts but not by src/index.ts").toEqual([]);
    expect(
      web.filter((name) => NODE_ONLY.includes(name)),
      "node:crypto functions in the web root",
    ).toEqual([]);
  });
});
