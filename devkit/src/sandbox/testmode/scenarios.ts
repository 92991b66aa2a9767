/**
 * Scenarios: chained calls of the partner API and the control API, with references to earlier answers
 * (`${company.id}`), that bring an account to a state in one go. Shipped ones by name (one YAML file each in
 * scenarios/), files given at start (`--scenario`), or posted (`runScenario`). A run goes through the
 * sandbox's own HTTP front like any call (validated, logged, firing webhooks), with the clock frozen for
 * its length, so the same state, seed and clock reading give the same ids.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { components } from "../../../../generated/sandbox.js";
import type { ContractRouter, Operation } from "../../contract/router.ts";
import { displayPath, scenariosDir } from "../../paths.ts";
import type { SandboxClock } from "../clock.ts";
import { DataFileError, parseDataText, readDataFile } from "./data-file.ts";

export type Scenario = components["schemas"]["Scenario"];
export type ScenarioStep = components["schemas"]["ScenarioStep"];
export type ScenarioRun = components["schemas"]["ScenarioRun"];

/** The header that marks a scenario's own calls: logged with the scenario's name, never faulted. */
export const SCENARIO_HEADER = "x-sandbox-scenario";
/** Operations a step may not call: a run inside a run, and a stream that never ends. */
const NOT_IN_SCENARIOS = new Set(["runScenario", "streamRequests"]);
const MAX_INCLUDE_DEPTH = 4;
const MAX_STEPS = 1000;
const REFERENCE = /\$\{([^}]*)\}/g;
const WHOLE_REFERENCE = /^\$\{([^}]*)\}$/;

/** A scenario that cannot run as given, or a step that answered otherwise than expected. */
export class ScenarioError extends Error {
  override readonly name = "ScenarioError";
}

/** A scenario file (YAML or JSON), checked against the contract's `Scenario` schema. */
export async function loadScenarioFile(file: string, router: ContractRouter): Promise<Scenario> {
  const shownAs = `the scenario ${displayPath(file)}`;
  return checkScenario(await readDataFile(file, shownAs).catch(asScenarioError), shownAs, router);
}

function asScenarioError(error: unknown): never {
  throw error instanceof DataFileError ? new ScenarioError(error.message) : error;
}

/** Parses and checks a scenario's text; `shownAs` names it in errors. */
function parseScenario(text: string, shownAs: string, router: ContractRouter): Scenario {
  let value: unknown;
  try {
    value = parseDataText(text, shownAs);
  } catch (error) {
    asScenarioError(error);
  }
  return checkScenario(value, shownAs, router);
}

/** The value, if the contract's `Scenario` schema takes it. */
function checkScenario(value: unknown, shownAs: string, router: ContractRouter): Scenario {
  const issues = router.validateBody(runScenarioOperation(router), "application/json", { scenario: value });
  if (issues.length > 0)
    throw new ScenarioError(
      `${shownAs} is not a scenario: ${issues.map((issue) => issue.message.replace(/^body\/scenario\/?/, "")).join("; ")}`,
    );
  return value as Scenario;
}

function runScenarioOperation(router: ContractRouter): Operation {
  const operation = router.operations.find((candidate) => candidate.operationId === "runScenario");
  if (!operation) throw new Error("the control contract has no runScenario");
  return operation;
}

let shipped: Map<string, Scenario> | undefined;

/** The shipped scenarios by name, read once. */
export function shippedScenarios(router: ContractRouter): Map<string, Scenario> {
  if (!shipped) {
    const found = new Map<string, Scenario>();
    for (const file of readdirSync(scenariosDir)
      .filter((name) => name.endsWith(".yaml"))
      .sort()) {
      const name = file.slice(0, -".yaml".length);
      const text = readFileSync(path.join(scenariosDir, file), "utf8");
      const scenario = parseScenario(text, `the shipped scenario ${name}`, router);
      found.set(name, { ...scenario, name });
    }
    shipped = found;
  }
  return shipped;
}

/** What a run needs of the sandbox: its address, its clock and the operations it can call. */
export interface ScenarioHost {
  router: ContractRouter;
  clock: SandboxClock;
  baseUrl(): string;
  /** Runs what fell due and sets the timer again (after the clock is let go). */
  wake(): Promise<void>;
}

interface Planned {
  step: ScenarioStep & { operationId: string };
  /** Where the step comes from, for messages: `step 3`, `step 1 (approved-company) → step 2`. */
  where: string;
}

export class ScenarioRunner {
  /** Runs in progress: the clock is held frozen while there is one. */
  private holding = 0;
  /** Whether the runs froze the clock (and so resume it), or found it frozen. */
  private froze = false;

  constructor(private readonly host: ScenarioHost) {}

  /** Runs `scenario` as `apiKey` (unless the scenario or a step names another account). */
  async run(scenario: Scenario, apiKey: string | undefined, label = scenario.name ?? "(posted)"): Promise<ScenarioRun> {
    const planned = this.plan(scenario.steps, "", 0);
    const account = apiKey ?? scenario.apiKey;
    this.hold();
    try {
      const answers = new Map<string, unknown>();
      const steps: ScenarioRun["steps"] = [];
      for (const { step, where } of planned) steps.push(await this.runStep(step, where, account, label, answers));
      return { scenario: label, steps };
    } finally {
      await this.release();
    }
  }

  private hold(): void {
    if (this.holding++ === 0) {
      this.froze = !this.host.clock.frozen;
      this.host.clock.freeze();
    }
  }

  private async release(): Promise<void> {
    if (--this.holding > 0 || !this.froze) return;
    this.host.clock.resume();
    await this.host.wake();
  }

  /** The steps with every `include` replaced by the shipped scenario's steps. */
  private plan(steps: readonly ScenarioStep[], prefix: string, depth: number): Planned[] {
    const planned: Planned[] = [];
    steps.forEach((step, index) => {
      const where = `${prefix}step ${index + 1}`;
      if (step.include !== undefined) {
        const names = shippedScenarios(this.host.router);
        const included = names.get(step.include);
        if (!included)
          throw new ScenarioError(
            `${where}: include ${JSON.stringify(step.include)} is not a shipped scenario (${[...names.keys()].join(", ")})`,
          );
        if (depth >= MAX_INCLUDE_DEPTH)
          throw new ScenarioError(`${where}: includes nest deeper than ${MAX_INCLUDE_DEPTH}`);
        planned.push(...this.plan(included.steps, `${where} (${step.include}) → `, depth + 1));
      } else planned.push({ step: step as Planned["step"], where });
      if (planned.length > MAX_STEPS) throw new ScenarioError(`the scenario runs more than ${MAX_STEPS} steps`);
    });
    return planned;
  }

  private operation(step: Planned["step"], where: string): Operation {
    const operation = this.host.router.operations.find((candidate) => candidate.operationId === step.operationId);
    if (!operation || NOT_IN_SCENARIOS.has(step.operationId))
      throw new ScenarioError(
        `${where}: operationId ${JSON.stringify(step.operationId)} is ${operation ? "not allowed in a scenario" : "not an operation of the partner API or the control API"}`,
      );
    return operation;
  }

  private async runStep(
    raw: Planned["step"],
    where: string,
    account: string | undefined,
    label: string,
    answers: Map<string, unknown>,
  ): Promise<ScenarioRun["steps"][number]> {
    const operation = this.operation(raw, where);
    const named = `${where} (${operation.operationId})`;
    const step = fill(raw, answers, named) as Planned["step"];
    const params = new Map(Object.entries(step.params ?? {}));
    const target = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = params.get(name);
      if (value === undefined)
        throw new ScenarioError(`${named}: params.${name} is required (the path ${operation.path})`);
      params.delete(name);
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    for (const parameter of operation.parameters) {
      const value = params.get(parameter.name);
      if (parameter.in !== "query" || value === undefined) continue;
      query.set(parameter.name, String(value));
      params.delete(parameter.name);
    }
    if (params.size > 0)
      throw new ScenarioError(
        `${named}: ${[...params.keys()].map((name) => `params.${name}`).join(", ")} is not a path or query parameter of ${operation.operationId}`,
      );
    const headers: Record<string, string> = { [SCENARIO_HEADER]: label };
    const apiKey = step.apiKey ?? account;
    if (apiKey !== undefined) headers["x-api-key"] = apiKey;
    else if (operation.needsApiKey)
      throw new ScenarioError(
        `${named} needs an account: call runScenario with X-API-Key, or give the scenario an apiKey`,
      );
    if (step.companyId !== undefined) headers["x-company-id"] = step.companyId;
    let body: string | undefined;
    if (step.body !== undefined && operation.requestBody) {
      const mediaTypes = [...operation.requestBody.mediaTypes.keys()];
      const mediaType = mediaTypes.find((type) => type.includes("json")) ?? mediaTypes[0]!;
      headers["content-type"] = mediaType;
      body =
        mediaType === "application/x-www-form-urlencoded"
          ? new URLSearchParams(step.body as Record<string, string>).toString()
          : JSON.stringify(step.body);
    }
    const url = `${this.host.baseUrl()}${target}${query.size > 0 ? `?${query}` : ""}`;
    const response = await fetch(url, { method: operation.method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    const answer =
      (response.headers.get("content-type") ?? "").includes("json") && text !== "" ? JSON.parse(text) : text;
    const expected = step.expect === undefined ? response.ok : response.status === step.expect;
    if (!expected) {
      const detail =
        typeof answer === "object" && answer !== null && "detail" in answer
          ? String(answer.detail)
          : text.slice(0, 300);
      throw new ScenarioError(
        `${named} answered ${response.status}${step.expect === undefined ? "" : ` (expected ${step.expect})`}: ${detail}`,
      );
    }
    if (step.name !== undefined) answers.set(step.name, answer);
    return {
      ...(step.name !== undefined ? { name: step.name } : {}),
      operationId: operation.operationId,
      method: operation.method,
      path: target,
      status: response.status,
      ...(text !== "" ? { body: answer } : {}),
    };
  }
}

/** A copy of `value` with every `${name.path}` filled in from the earlier answers. */
function fill(value: unknown, answers: Map<string, unknown>, where: string): unknown {
  if (typeof value === "string") {
    const whole = WHOLE_REFERENCE.exec(value);
    if (whole) return lookUp(whole[1]!, answers, where);
    return value.replace(REFERENCE, (_, expression: string) => {
      const found = lookUp(expression, answers, where);
      return typeof found === "object" ? JSON.stringify(found) : String(found);
    });
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, answers, where));
  if (value !== null && typeof value === "object") {
    const copy: Record<string, unknown> = Object.create(null);
    for (const [key, item] of Object.entries(value)) copy[key] = fill(item, answers, where);
    return copy;
  }
  return value;
}

/** `name.path` in the answer of the step called `name`; the one key wrapping a resource may be left out. */
function lookUp(expression: string, answers: Map<string, unknown>, where: string): unknown {
  const [name = "", ...parts] = expression.trim().split(".");
  if (!answers.has(name))
    throw new ScenarioError(
      `${where}: \${${expression}} names no earlier step "${name}" (named so far: ${[...answers.keys()].join(", ") || "none"})`,
    );
  let value = answers.get(name);
  if (parts.length > 0 && isRecord(value) && !Object.hasOwn(value, parts[0]!)) {
    const keys = Object.keys(value);
    if (keys.length === 1) value = value[keys[0]!];
  }
  for (const part of parts) {
    if (Array.isArray(value) && /^\d+$/.test(part) && Number(part) < value.length) value = value[Number(part)];
    else if (isRecord(value) && Object.hasOwn(value, part)) value = value[part];
    else throw new ScenarioError(`${where}: \${${expression}}: the answer of "${name}" has no ${part} there`);
  }
  if (value === undefined || value === null) throw new ScenarioError(`${where}: \${${expression}} is ${String(value)}`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
