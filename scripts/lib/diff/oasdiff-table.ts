/**
 * Reads oasdiff's rule registry (`checker/rules.go`: one `newBackwardCompatibilityRule(…)` row per rule id, with
 * its level, handler, direction, area, kind and action) and writes it as a TypeScript table, so this gate's
 * `--profile oasdiff` takes oasdiff's levels from what oasdiff says, not from memory. The ids themselves are Go
 * constants (`ResponseOptionalPropertyRemovedId = "response-optional-property-removed"`) declared in the other
 * source files of the same folder; they are read from there. Anything in a row this reader does not understand is
 * an error naming the file and line.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "partner-api-devkit/cli";
import type { Level } from "./checks/define.ts";

/** One rule as rules.go declares it. */
export interface OasdiffRule {
  id: string;
  level: Level;
  /** `request`, `response` or `none`, as oasdiff's `Direction.String()` spells it. */
  direction: string;
  /** The OpenAPI object the rule concerns (`schema`, `parameters`, `responses`, …). */
  area: string;
  kind: string;
  action: string;
  /** The handler function, or null where rules.go gives `nil` (rules the checker applies itself). */
  check: string | null;
  /** The Go constant naming the id. */
  constant: string;
  /** Where the row is in rules.go (1-based). */
  line: number;
}

/** Where the table was read from. */
export interface OasdiffStamp {
  /** The oasdiff commit (40 hex digits). */
  commit: string;
  /** The commit's date, YYYY-MM-DD, when known. */
  date?: string;
  /** The file read, relative to oasdiff's repository: `checker/rules.go`. */
  file: string;
}

/** oasdiff's level constants (checker/level.go) as this gate names levels (oasdiff's own `Level.String()`). */
const LEVEL_NAMES: Record<string, Level> = { ERR: "error", WARN: "warning", INFO: "info" };

const CALL = "newBackwardCompatibilityRule(";

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length;

/**
 * The `String()` methods of rules.go's enums (`func (d Direction) String() string { switch d { case
 * DirectionRequest: return "request" … default: return "none" } }`), by type: each row's direction, area, kind
 * and action are spelled as those methods spell them.
 */
function enumNames(text: string): Map<string, { cases: Map<string, string>; fallback?: string }> {
  const types = new Map<string, { cases: Map<string, string>; fallback?: string }>();
  for (const method of text.matchAll(/^func \(\w+ (\w+)\) String\(\) string \{\n([\s\S]*?)^\}/gm)) {
    const cases = new Map<string, string>();
    for (const match of method[2]!.matchAll(/case\s+([\w\s,]+?)\s*:\s*return\s+"([^"]*)"/g))
      for (const name of match[1]!.split(",")) cases.set(name.trim(), match[2]!);
    const fallback = /default\s*:\s*return\s+"([^"]*)"/.exec(method[2]!)?.[1];
    types.set(method[1]!, { cases, fallback });
  }
  return types;
}

/** The arguments of the call opening at `open` (the index of its `(`), and the index after its `)`. */
function callArguments(text: string, open: number, where: string): { args: string[]; end: number } {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (char === "(") depth++;
    else if (char === ")" && --depth === 0) {
      const inner = text.slice(open + 1, i).replace(/\/\/[^\n]*/g, "");
      return { args: inner.split(",").map((arg) => arg.trim()), end: i + 1 };
    }
  }
  throw new UsageError(`${where}: the row's parentheses never close`);
}

/**
 * Every rule row of rules.go. `constants` maps a Go constant to its string (from the folder's other files);
 * `shown` names rules.go in errors.
 */
export function parseRules(text: string, constants: ReadonlyMap<string, string>, shown: string): OasdiffRule[] {
  const names = enumNames(text);
  const rules: OasdiffRule[] = [];
  const seen = new Map<string, number>();
  let from = 0;
  for (;;) {
    const index = text.indexOf(CALL, from);
    if (index < 0) break;
    from = index + CALL.length;
    const line = lineAt(text, index);
    const where = `${shown}:${line}`;
    if (/func\s+$/.test(text.slice(Math.max(0, index - 10), index))) continue; // the constructor's own declaration
    const { args, end } = callArguments(text, index + CALL.length - 1, where);
    from = end;
    const row = text.slice(index, end).replace(/\s+/g, " ");
    const fail = (why: string): never => {
      throw new UsageError(`${where}: row not understood (${why}): ${row}`);
    };
    if (args.length !== 7) fail(`7 arguments expected, found ${args.length}`);
    const [constant, levelName, handler, direction, area, kind, action] = args as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    for (const arg of args) if (!/^[A-Za-z_]\w*$/.test(arg)) fail(`argument ${JSON.stringify(arg)} is not a name`);
    const id = constants.get(constant) ?? fail(`no string constant ${constant} in the folder's Go files`);
    const level =
      LEVEL_NAMES[levelName] ?? fail(`level ${levelName} is none of ${Object.keys(LEVEL_NAMES).join(", ")}`);
    const named = (value: string, type: string) => {
      if (!value.startsWith(type)) fail(`${value} is not a ${type}… value`);
      const method = names.get(type) ?? fail(`rules.go has no ${type}.String() to spell ${value}`);
      return method.cases.get(value) ?? method.fallback ?? fail(`${value} has no case in ${type}.String()`);
    };
    const previous = seen.get(id);
    if (previous !== undefined) fail(`id ${id} is already declared on line ${previous}`);
    seen.set(id, line);
    rules.push({
      id,
      level,
      direction: named(direction, "Direction"),
      area: named(area, "Area"),
      kind: named(kind, "Kind"),
      action: named(action, "Action"),
      check: handler === "nil" ? null : handler,
      constant,
      line,
    });
  }
  if (rules.length === 0)
    throw new UsageError(`${shown}: no ${CALL}…) rows found; is this oasdiff's checker/rules.go?`);
  return rules;
}

/**
 * The package-level string constants of Go source text: `const Name = "value"` and the `Name = "value"` lines of a
 * top-level `const (…)` block. Constants declared inside functions are not the package's and are skipped.
 */
export function goStringConstants(text: string, shown: string, into = new Map<string, string>()): Map<string, string> {
  const add = (name: string, value: string, index: number) => {
    const known = into.get(name);
    if (known !== undefined && known !== value)
      throw new UsageError(`${shown}:${lineAt(text, index)}: constant ${name} declared twice, differently`);
    into.set(name, value);
  };
  const constant = /^([A-Za-z_]\w*)(?:[ \t]+string)?[ \t]*=[ \t]*"([^"\\]*)"/;
  for (const match of text.matchAll(/^const[ \t]+([A-Za-z_]\w*)(?:[ \t]+string)?[ \t]*=[ \t]*"([^"\\]*)"/gm))
    add(match[1]!, match[2]!, match.index);
  for (const block of text.matchAll(/^const[ \t]*\(\n([\s\S]*?)^\)/gm)) {
    let offset = block.index + block[0].indexOf("\n") + 1;
    for (const line of block[1]!.split("\n")) {
      const match = constant.exec(line.trim());
      if (match) add(match[1]!, match[2]!, offset);
      offset += line.length + 1;
    }
  }
  return into;
}

/** Reads rules.go and the string constants of the other (non-test) Go files beside it. */
export async function readRules(file: string, shown: string): Promise<OasdiffRule[]> {
  let text: string;
  let entries: string[];
  try {
    text = await readFile(file, "utf8");
    entries = await readdir(path.dirname(file));
  } catch (error) {
    throw new UsageError(
      `${shown} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const constants = new Map<string, string>();
  for (const entry of entries.sort()) {
    if (!entry.endsWith(".go") || entry.endsWith("_test.go")) continue;
    const source = path.join(path.dirname(file), entry);
    goStringConstants(await readFile(source, "utf8"), path.join(path.dirname(shown), entry), constants);
  }
  return parseRules(text, constants, shown);
}

/** The committed table: a TypeScript module, so a mapped id that oasdiff does not have is a `tsc` error. */
export function renderTable(rules: readonly OasdiffRule[], stamp: OasdiffStamp): string {
  const rows = rules.map(
    (rule) =>
      `  ${JSON.stringify(rule.id)}: { level: ${JSON.stringify(rule.level)}, direction: ${JSON.stringify(rule.direction)}, ` +
      `area: ${JSON.stringify(rule.area)}, kind: ${JSON.stringify(rule.kind)}, action: ${JSON.stringify(rule.action)}, ` +
      `check: ${JSON.stringify(rule.check)}, line: ${rule.line} },`,
  );
  return `/**
 * Generated by \`npm run oasdiff -- table\` from oasdiff's ${stamp.file}; do not edit. Every rule id oasdiff declares,
 * with its level, direction, area (the OpenAPI object it concerns), kind, action, handler and line in that file.
 */
export const OASDIFF_SOURCE = {
  repository: "https://github.com/oasdiff/oasdiff",
  commit: ${JSON.stringify(stamp.commit)},
  date: ${JSON.stringify(stamp.date ?? null)},
  file: ${JSON.stringify(stamp.file)},
  rules: ${rules.length},
} as const;

export const OASDIFF_RULES = {
${rows.join("\n")}
} as const;

export type OasdiffId = keyof typeof OASDIFF_RULES;
`;
}
