/**
 * The gate's configuration file (`openapi-changes.allow.yaml`): `levels` changes a check's level (or turns it
 * off with `none`), `acknowledged` accepts one failing change by its key with a reason.
 */
import { readFile } from "node:fs/promises";
import { describeValue, UsageError } from "partner-api-devkit/cli";
import { parse } from "yaml";
import { findCheck, LEVELS, type Level } from "./registry.ts";
import { isObject } from "./resolve.ts";

export interface AllowEntry {
  /** The change's key exactly as the diff prints it: `<check> <location>`. */
  change: string;
  reason: string;
}

export interface GateConfig {
  /** Check id → its level here, or `none` to leave it out. */
  levels: Map<string, Level | "none">;
  acknowledged: AllowEntry[];
}

export const CONFIG_FILE = "openapi-changes.allow.yaml";

export const emptyConfig = (): GateConfig => ({ levels: new Map(), acknowledged: [] });

/** Reads and checks the config file. A missing file is an empty config unless `required` (given explicitly). */
export async function readConfig(file: string, shown: string, required = false): Promise<GateConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && !required) return emptyConfig();
    throw new UsageError(
      `config ${describeValue(shown)} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parseConfig(text, shown);
}

export function parseConfig(text: string, shown: string): GateConfig {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new UsageError(`config "${shown}" is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (data === null || data === undefined) return emptyConfig();
  if (!isObject(data))
    throw new UsageError(`config "${shown}" must be a mapping with \`levels:\` and \`acknowledged:\``);
  for (const key of Object.keys(data)) {
    if (key !== "levels" && key !== "acknowledged")
      throw new UsageError(`config "${shown}": unknown key ${describeValue(key)}; expected levels or acknowledged`);
  }
  const levels = new Map<string, Level | "none">();
  const rawLevels = data.levels ?? {};
  if (!isObject(rawLevels))
    throw new UsageError(`config "${shown}": \`levels\` must map check ids to error, warning, info or none`);
  for (const [id, level] of Object.entries(rawLevels)) {
    if (!findCheck(id))
      throw new UsageError(
        `config "${shown}": no check ${describeValue(id)}; \`npm run diff -- --list-checks\` prints every check id`,
      );
    if (level !== "none" && !(LEVELS as readonly unknown[]).includes(level))
      throw new UsageError(
        `config "${shown}": level of ${id} must be one of ${[...LEVELS, "none"].join(", ")}, got ${describeValue(level)}`,
      );
    levels.set(id, level as Level | "none");
  }
  const list = data.acknowledged ?? [];
  if (!Array.isArray(list)) throw new UsageError(`config "${shown}": \`acknowledged\` must be a list`);
  const acknowledged = list.map((entry, index) => {
    const where = `config "${shown}" acknowledged entry ${index + 1}`;
    if (!isObject(entry)) throw new UsageError(`${where} must be a mapping with \`change\` and \`reason\``);
    if (typeof entry.change !== "string" || entry.change.trim() === "") {
      throw new UsageError(
        `${where} has no \`change\`: copy the key the diff prints (for example "response-required-field-removed #/components/schemas/Card .last4")`,
      );
    }
    if (typeof entry.reason !== "string" || entry.reason.trim() === "") {
      throw new UsageError(
        `${where} ("${entry.change}") has no \`reason\`: say why partners can live with this breaking change`,
      );
    }
    return { change: entry.change.trim(), reason: entry.reason.trim() };
  });
  return { levels, acknowledged };
}
