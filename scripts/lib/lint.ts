import fs from "node:fs";
import path from "node:path";
import { getLineColLocation, loadConfig, lint as redoclyLint } from "@redocly/openapi-core";
import spectralCore from "@stoplight/spectral-core";
import spectralParsers from "@stoplight/spectral-parsers";
import { bundleAndLoadRuleset } from "@stoplight/spectral-ruleset-bundler/with-loader";
import spectralRuntime from "@stoplight/spectral-runtime";
import { checkWorkflowDocuments, pointerSegment } from "partner-api-devkit/cli";
import { type BundleOutput, bundleSandboxContract } from "./bundle.ts";
import { contractRoot, rel, repoRoot, sandboxContractRoot, workflowFiles } from "./paths.ts";

const { Spectral, Document } = spectralCore;
const Parsers = spectralParsers;
const { fetch } = spectralRuntime;

export type Severity = "error" | "warning" | "info" | "hint";

export interface Finding {
  /**
   * `arazzo`: the devkit's checks of the workflows (operations, references, runtime expressions); `contracts`: what
   * holds across the partner and the control contract (an operationId in both).
   */
  tool: "redocly" | "spectral" | "arazzo" | "contracts";
  rule: string;
  severity: Severity;
  message: string;
  /** file:line:column, relative to the repository. */
  where: string;
  /** JSON pointer-like path inside the document, when known. */
  pointer?: string;
}

/** Redocly's rules (redocly.yaml) on the split source files. */
export async function lintWithRedocly(root: string): Promise<Finding[]> {
  const config = await loadConfig({ configPath: path.join(repoRoot, "redocly.yaml") });
  const problems = await redoclyLint({ ref: root, config });
  return problems
    .filter((problem) => !problem.ignored)
    .map((problem) => {
      const location = problem.location[0];
      let where = rel(root);
      if (location) {
        const { start } = getLineColLocation(location);
        where = `${rel(location.source.absoluteRef)}:${start.line}:${start.col}`;
      }
      return {
        tool: "redocly",
        rule: problem.ruleId,
        severity: problem.severity === "warn" ? "warning" : "error",
        message: problem.message,
        where,
        pointer: location?.pointer,
      } satisfies Finding;
    });
}

const SPECTRAL_SEVERITY: Severity[] = ["error", "warning", "info", "hint"];

/** The Spectral ruleset of the sandbox's control contract: spectral:oas and the rules that are not partner-only. */
const sandboxSpectralRuleset = path.join(repoRoot, "spectral", "sandbox.yaml");

/** A Spectral linter with a ruleset loaded (.spectral.yaml unless told), as `lintWithSpectral` and the rule tests use it. */
export async function loadSpectral(
  rulesetPath: string = path.join(repoRoot, ".spectral.yaml"),
): Promise<InstanceType<typeof Spectral>> {
  const spectral = new Spectral();
  spectral.setRuleset(await bundleAndLoadRuleset(rulesetPath, { fs, fetch }));
  return spectral;
}

/** Spectral's rules (.spectral.yaml unless told) on the bundle, where shared components are local $refs. */
export async function lintWithSpectral(
  bundle: Pick<BundleOutput, "yaml">,
  source = "generated/openapi.yaml",
  rulesetPath: string = path.join(repoRoot, ".spectral.yaml"),
): Promise<Finding[]> {
  const spectral = await loadSpectral(rulesetPath);
  const results = await spectral.run(new Document(bundle.yaml, Parsers.Yaml, source));
  return results.map((result) => ({
    tool: "spectral",
    rule: String(result.code),
    severity: SPECTRAL_SEVERITY[result.severity] ?? "error",
    message: result.message,
    where: `${source}:${result.range.start.line + 1}:${result.range.start.character + 1}`,
    pointer: `#/${result.path.map((segment) => pointerSegment(String(segment))).join("/")}`,
  }));
}

/** The sandbox's control contract: Redocly on its files, Spectral (spectral/sandbox.yaml) on its bundle. */
export async function lintSandboxContract(): Promise<Finding[]> {
  const redocly = await lintWithRedocly(sandboxContractRoot);
  const spectral = await lintWithSpectral(
    await bundleSandboxContract(),
    "generated/sandbox.yaml",
    sandboxSpectralRuleset,
  );
  return [...redocly, ...spectral];
}

/** Every operationId of a bundled contract, with the operation (`GET /v1/cards`, `webhook x POST`) it names. */
function operationIds(document: Record<string, unknown>): Map<string, string> {
  const ids = new Map<string, string>();
  for (const kind of ["paths", "webhooks"] as const) {
    const items = document[kind];
    if (!items || typeof items !== "object") continue;
    for (const [key, item] of Object.entries(items as Record<string, unknown>)) {
      if (!item || typeof item !== "object") continue;
      for (const [method, operation] of Object.entries(item as Record<string, unknown>)) {
        const id = (operation as { operationId?: unknown } | null)?.operationId;
        if (typeof id === "string")
          ids.set(id, kind === "paths" ? `${method.toUpperCase()} ${key}` : `webhook ${key} ${method.toUpperCase()}`);
      }
    }
  }
  return ids;
}

/** The split file and line under `dir` that declares `operationId: <id>`, or the contract's root. */
function declaration(dir: string, id: string, fallback: string): string {
  const pattern = new RegExp(`^\\s*operationId:\\s*['"]?${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}['"]?\\s*$`);
  const walk = (folder: string): string | undefined => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        const found = walk(file);
        if (found) return found;
      } else if (/\.ya?ml$/.test(entry.name)) {
        const index = fs
          .readFileSync(file, "utf8")
          .split("\n")
          .findIndex((line) => pattern.test(line));
        if (index !== -1) return `${rel(file)}:${index + 1}:1`;
      }
    }
    return undefined;
  };
  return (fs.existsSync(dir) && walk(dir)) || fallback;
}

/**
 * An operationId names one operation across both contracts: the workflows, verify and the sandbox's handlers look
 * operations up by id in either, so one id in both is ambiguous. One finding per clash, naming the id and both
 * operations, at the control contract's declaration.
 */
export function lintOperationIdsAcrossContracts(
  partner: Record<string, unknown>,
  control: Record<string, unknown>,
  dirs: { partner: string; control: string } = {
    partner: path.join(repoRoot, "openapi", "paths"),
    control: path.dirname(sandboxContractRoot),
  },
): Finding[] {
  const partnerIds = operationIds(partner);
  const findings: Finding[] = [];
  for (const [id, controlOperation] of operationIds(control)) {
    const partnerOperation = partnerIds.get(id);
    if (partnerOperation === undefined) continue;
    const partnerAt = declaration(dirs.partner, id, rel(contractRoot));
    findings.push({
      tool: "contracts",
      rule: "operation-id-unique",
      severity: "error",
      message:
        `operationId "${id}" is used by both contracts: ${partnerOperation} in the partner contract (${partnerAt}) and ` +
        `${controlOperation} in the sandbox's control contract; an operationId must be unique across both (rename one)`,
      where: declaration(dirs.control, id, rel(sandboxContractRoot)),
    });
  }
  return findings;
}

/** Spectral's ruleset of the workflows: spectral:arazzo. */
const arazzoSpectralRuleset = path.join(repoRoot, "spectral", "arazzo.yaml");

/** The line of a devkit issue's place (`workflow w, step s, …`) in the file's text: the step's, the workflow's, or 1. */
function lineOf(text: string, at: string): number {
  const lines = text.split("\n");
  const find = (pattern: RegExp, from = 0) => {
    for (let index = from; index < lines.length; index++) if (pattern.test(lines[index]!)) return index;
    return -1;
  };
  const literal = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const [, workflow, step] = /^workflow ([^,]+)(?:, step ([^,]+))?/.exec(at) ?? [];
  const workflowLine =
    workflow === undefined ? -1 : find(new RegExp(`workflowId: ['"]?${literal(workflow)}['"]?\\s*$`));
  const stepLine =
    step === undefined ? -1 : find(new RegExp(`stepId: ['"]?${literal(step)}['"]?\\s*$`), Math.max(workflowLine, 0));
  return (stepLine !== -1 ? stepLine : workflowLine !== -1 ? workflowLine : 0) + 1;
}

/**
 * The workflows (openapi/workflows/): Redocly's Arazzo rules and Spectral's (spectral:arazzo) on each file, then the
 * devkit's checks against the two contracts' bundles: every step's operation exists in its source, every runtime
 * expression names a step, output, input or workflow that exists, every reference resolves.
 */
export async function lintWorkflows(
  contracts: { partner: BundleOutput; control: BundleOutput },
  files: readonly string[] = workflowFiles(),
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const texts = files.map((file) => ({ file, text: fs.readFileSync(file, "utf8") }));
  for (const { file, text } of texts) {
    findings.push(...(await lintWithRedocly(file)));
    findings.push(...(await lintWithSpectral({ yaml: text }, rel(file), arazzoSpectralRuleset)));
  }
  const byName = new Map(texts.map(({ file, text }) => [path.basename(file), { file, text }]));
  const issues = checkWorkflowDocuments(
    texts.map(({ file, text }) => ({ file: path.basename(file), text })),
    { partner: contracts.partner.document, control: contracts.control.document },
  );
  for (const issue of issues) {
    const { file, text } = byName.get(issue.file)!;
    findings.push({
      tool: "arazzo",
      rule: "workflow-resolves",
      severity: "error",
      message: `${issue.at}: ${issue.message}`,
      where: `${rel(file)}:${lineOf(text, issue.at)}:1`,
    });
  }
  return findings;
}
