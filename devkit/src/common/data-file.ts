/** Reading the YAML or JSON files test mode takes (scenarios, faults): one way, with the file named in errors. */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

/**
 * The YAML parser, loaded on first use: a sandbox given no scenario or faults file (most starts, every restart on
 * a state file) does not load it.
 */
let yaml: typeof import("yaml") | undefined;
function parseYaml(text: string): unknown {
  yaml ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  // A few aliases at most: a file of a thousand nested aliases should not expand without bound.
  return yaml.parse(text, { maxAliasCount: 100 });
}

/** A data file that cannot be read or parsed; the message names it. */
export class DataFileError extends Error {
  override readonly name = "DataFileError";
}

/** Parses YAML (JSON is YAML too); `shownAs` names the text in errors. */
export function parseDataText(text: string, shownAs: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw new DataFileError(`${shownAs} is neither YAML nor JSON: ${(error as Error).message}`);
  }
}

/** Reads and parses a YAML or JSON file; `shownAs` names it in errors ("the scenario x.yaml", "--faults x.yaml"). */
export async function readDataFile(file: string, shownAs: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new DataFileError(
      `cannot read ${shownAs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parseDataText(text, shownAs);
}
