/**
 * The TypeScript a partner reads: every ```ts block of docs/partners.md and of the rendered reference's
 * getting-started section, and the reference's sample of each operation, as modules for `typecheckModules()`
 * (scripts/lib/typecheck.ts).
 *
 * The getting-started blocks are whole programs. The partners' guide reads top to bottom, so a later block uses
 * what an earlier one made (`client`) or what the reader's app has (`apiKey`, a Redis client): those names come
 * from one context module, `GUIDE_CONTEXT`, imported on a block's first line when the block uses one without
 * declaring it. Nothing else is added, so a block that calls a function the package does not export, or the
 * client with a wrong body, fails to compile as it would in the reader's editor.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { HTTP_METHODS } from "partner-api-client";
import { isObject, type JsonObject } from "partner-api-devkit/cli";
import ts from "typescript";
import { partnersGuidePath, repoRoot } from "../paths.ts";
import type { ModuleSource } from "../typecheck.ts";
import { gettingStartedPath } from "./getting-started.ts";
import { addCodeSamples, TYPESCRIPT_LABEL } from "./samples.ts";

/**
 * The guide's two MSW examples (docs/partners.md, "The sandbox in unit and browser tests"), by block name: they
 * import MSW and Vitest, which a project has only when it tests with them, so test/msw/installed.test.ts compiles
 * and runs them in a project that installs those, and test/devkit/installed.test.ts's project leaves them out.
 */
export const MSW_EXAMPLES = {
  vitest: "partners-vitest-with-setupserver",
  browser: "partners-a-browser-page-with-setupworker",
} as const;

/** An opening fence of a TypeScript block, at any indentation (a block inside a list item is indented). */
const TS_FENCE = /^( *)```(?:ts|typescript)[ \t]*$/;

/**
 * Each TypeScript block of a Markdown text, named `<prefix>-<slug of the heading above it>` (`-2` for a second
 * block under one heading), with the indentation of its fence taken off every line.
 */
export function markdownTypeScriptBlocks(markdown: string, prefix: string, file?: string): ModuleSource[] {
  const blocks: ModuleSource[] = [];
  const perHeading = new Map<string, number>();
  const lines = markdown.split("\n");
  let heading = "intro";
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const title = /^#{1,6} (.+)$/.exec(line)?.[1];
    if (title !== undefined) {
      heading = title
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "");
      continue;
    }
    const fence = /^( *)```(\S*)/.exec(line);
    if (!fence) continue;
    const indent = fence[1]!;
    const end = lines.findIndex((candidate, at) => at > index && candidate.trimEnd() === `${indent}\`\`\``);
    if (end === -1) throw new Error(`${file ?? prefix}:${index + 1}: a code block that is never closed`);
    // Another language's block is skipped whole: a `# comment` in a shell block is not a heading.
    if (!TS_FENCE.test(line)) {
      index = end;
      continue;
    }
    const source = lines
      .slice(index + 1, end)
      .map((code) => (code.startsWith(indent) ? code.slice(indent.length) : code))
      .join("\n");
    const count = (perHeading.get(heading) ?? 0) + 1;
    perHeading.set(heading, count);
    blocks.push({
      name: `${prefix}-${heading}${count > 1 ? `-${count}` : ""}`,
      source: `${source}\n`,
      ...(file ? { origin: { file, line: index + 2 } } : {}),
    });
    index = end;
  }
  return blocks;
}

/** How many blocks a Markdown text opens as TypeScript, counted loosely (for a test that none is missed). */
export function countTypeScriptFences(markdown: string): number {
  return markdown.match(/^\s*```\s*(?:ts|typescript|tsx|mts|cts)\b/gim)?.length ?? 0;
}

/** What the guide's blocks use without importing: package exports an earlier block imported... */
const CONTEXT_IMPORTS = ["createPartnerClient", "unwrap"];
/** ...values an earlier block made, and values of the reader's own app, with their types. */
const CONTEXT_VALUES: Readonly<Record<string, string>> = {
  client: "PartnerClient",
  acme: "CompanyClient",
  company: "CompanyClient",
  apiKey: "string",
  baseUrl: "string",
  companyId: "string",
  receiverUrl: "string",
  secrets: "string[]",
  on: "WebhookHandlers",
  redis:
    "{ set(key: string, value: string, options: { NX: true; EX: number }): Promise<string | null>; del(key: string): Promise<number> }",
};

/** The module every partners' guide block may take names from. */
export const GUIDE_CONTEXT: ModuleSource = {
  name: "guide-context",
  source: [
    'import type { CompanyClient, PartnerClient, WebhookHandlers } from "partner-api-client";',
    `export { ${CONTEXT_IMPORTS.join(", ")} } from "partner-api-client";`,
    ...Object.entries(CONTEXT_VALUES).map(([name, type]) => `export declare const ${name}: ${type};`),
    "",
  ].join("\n"),
};

/**
 * The names a module declares at its top level (imports, variables with their destructured names, functions,
 * classes) and the names it refers to anywhere (not a property name, not a comment).
 */
function names(source: string): { declared: Set<string>; referenced: Set<string> } {
  const file = ts.createSourceFile("block.mts", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const declared = new Set<string>();
  const bind = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) declared.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) declared.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) declared.add(bindings.name.text);
      else if (bindings) for (const element of bindings.elements) declared.add(element.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    } else if (
      (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      declared.add(statement.name.text);
    }
  }
  const referenced = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      const isPropertyName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isQualifiedName(parent) && parent.right === node) ||
        ((ts.isPropertyAssignment(parent) ||
          ts.isPropertySignature(parent) ||
          ts.isPropertyDeclaration(parent) ||
          ts.isMethodDeclaration(parent) ||
          ts.isMethodSignature(parent)) &&
          parent.name === node);
      if (!isPropertyName) referenced.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { declared, referenced };
}

/** The context's names a block refers to without declaring, imported on its first line (so line numbers hold). */
export function withGuideContext(block: ModuleSource): ModuleSource {
  const { declared, referenced } = names(block.source);
  const used = [...CONTEXT_IMPORTS, ...Object.keys(CONTEXT_VALUES)].filter(
    (name) => referenced.has(name) && !declared.has(name),
  );
  if (used.length === 0) return block;
  return { ...block, source: `import { ${used.join(", ")} } from "./${GUIDE_CONTEXT.name}.mjs"; ${block.source}` };
}

/** The TypeScript sample of every operation (`sample-<operationId>`), read back from `x-codeSamples` as Redoc gets it. */
export function operationSamples(document: JsonObject): ModuleSource[] {
  const decorated = addCodeSamples(document).document as JsonObject;
  const samples: ModuleSource[] = [];
  for (const item of Object.values(isObject(decorated.paths) ? decorated.paths : {})) {
    for (const method of HTTP_METHODS) {
      const operation = isObject(item) ? item[method] : undefined;
      if (!isObject(operation)) continue;
      const list = Array.isArray(operation["x-codeSamples"]) ? operation["x-codeSamples"] : [];
      const sample = list.find((entry) => isObject(entry) && entry.label === TYPESCRIPT_LABEL);
      if (!isObject(sample) || typeof sample.source !== "string")
        throw new Error(`${method.toUpperCase()} ${String(operation.operationId)} has no TypeScript sample`);
      samples.push({ name: `sample-${String(operation.operationId)}`, source: sample.source });
    }
  }
  return samples;
}

/**
 * Every TypeScript a partner reads in the docs: the partners' guide's blocks with their context, the
 * getting-started section's, and the rendered reference's sample of each operation of `document`.
 */
export function documentedSnippets(document: JsonObject): ModuleSource[] {
  const guide = markdownTypeScriptBlocks(readFileSync(partnersGuidePath, "utf8"), "partners", "docs/partners.md");
  // The file as written, so a block's line is the file's (the install steps it takes from the guide are shell).
  const gettingStarted = markdownTypeScriptBlocks(
    readFileSync(gettingStartedPath, "utf8"),
    "getting-started",
    path.relative(repoRoot, gettingStartedPath),
  );
  return [GUIDE_CONTEXT, ...guide.map(withGuideContext), ...gettingStarted, ...operationSamples(document)];
}
