/**
 * The two package roots list their surface name by name (no `export *`): src/index.ts for Node and
 * src/index.web.ts for browsers and workers. The web root must offer everything the Node root does except the
 * node:crypto webhook functions, whose Web Crypto twins (`…Async`) it has instead; this keeps the lists in step.
 */
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

describe("the package roots", () => {
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
