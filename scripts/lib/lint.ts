import fs from "node:fs";
import path from "node:path";
import { getLineColLocation, loadConfig, lint as redoclyLint } from "@redocly/openapi-core";
import spectralCore from "@stoplight/spectral-core";
import spectralParsers from "@stoplight/spectral-parsers";
import { bundleAndLoadRuleset } from "@stoplight/spectral-ruleset-bundler/with-loader";
import spectralRuntime from "@stoplight/spectral-runtime";
import { checkWorkflowDocuments, pointerSegment } from "partner-api-devkit/cli";
import { type BundleOutput, bundleSandboxContract } from "./bundle.ts";
import { rel, repoRoot, sandboxContractRoot, workflowFiles } from "./paths.ts";

const { Spectral, Document } = spectralCore;
const Parsers = spectralParsers;
const { fetch } = spectralRuntime;

export type Severity = "error" | "warning" | "info" | "hint";

export interface Finding {
  /** `arazzo`: the devkit's checks of the workflows (operations, references, runtime expressions). */
  tool: "redocly" | "spectral" | "arazzo";
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
