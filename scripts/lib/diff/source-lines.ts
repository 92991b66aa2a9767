/**
 * Where a change is in the split contract: the file under `openapi/` and the line a reviewer edits, from the
 * location the gate prints (`#/components/schemas/Card .last4`, `POST /v1/cards response 201`,
 * `webhook payment_route.created POST`). The bundle hoists each component from its own file (named after it) and
 * the root maps every path and webhook to its file, so the file is looked up there; the line is that of the
 * deepest key of the location found in the file (the field, the response, the operation), else the file's first.
 * Used by `--format github` so annotations land on the YAML in the pull request's diff.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { CONTRACT_ROOT } from "./load.ts";

export interface SourceLine {
  /** Relative to the repository, with `/`. */
  file: string;
  line: number;
}

const METHODS = new Set(["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"]);
/** The words of a printed location that name a key of another spelling in the YAML. */
const KEYS: Record<string, string> = { response: "responses", link: "links", body: "requestBody", header: "headers" };

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? yamlFiles(file) : /\.ya?ml$/.test(entry.name) ? [file] : [];
  });
}

/** The first key named `key` at or below `node`, breadth first: the line where it is written. */
function findKey(node: unknown, key: string): { value: unknown; offset: number } | undefined {
  const queue: unknown[] = [node];
  while (queue.length > 0) {
    const current = queue.shift();
    if (isMap(current)) {
      for (const pair of current.items) {
        if (isPair(pair) && isScalar(pair.key) && String(pair.key.value) === key)
          return { value: pair.value, offset: pair.key.range?.[0] ?? 0 };
      }
      for (const pair of current.items) if (isPair(pair)) queue.push(pair.value);
    } else if (isSeq(current)) queue.push(...current.items);
  }
  return undefined;
}

/** Maps printed locations to split files and lines in the repository at `repoDir` (its working tree). */
export function sourceLines(repoDir: string): (location: string) => SourceLine | undefined {
  const rootFile = path.join(repoDir, CONTRACT_ROOT);
  if (!existsSync(rootFile)) return () => undefined;
  const root = parseDocument(readFileSync(rootFile, "utf8")).toJS() as Record<string, unknown>;
  const refsOf = (section: unknown) => {
    const map = new Map<string, string>();
    if (section && typeof section === "object")
      for (const [name, item] of Object.entries(section as Record<string, { $ref?: unknown }>))
        if (typeof item?.$ref === "string") map.set(name, path.join(path.dirname(rootFile), item.$ref));
    return map;
  };
  const paths = refsOf(root.paths);
  const webhooks = refsOf(root.webhooks);
  // A component's file is named after it (openapi/components/<kind>/…/<Name>.yaml); the first of a name wins.
  const components = new Map<string, string>();
  for (const file of yamlFiles(path.join(path.dirname(rootFile), "components"))) {
    const kind = path.relative(path.join(path.dirname(rootFile), "components"), file).split(path.sep)[0];
    const key = `${kind}/${path.basename(file).replace(/\.ya?ml$/, "")}`;
    if (!components.has(key)) components.set(key, file);
  }
  const parsed = new Map<string, { document: ReturnType<typeof parseDocument>; lines: LineCounter }>();
  const lineIn = (file: string, words: string[]): SourceLine => {
    let entry = parsed.get(file);
    if (!entry) {
      const lines = new LineCounter();
      entry = { document: parseDocument(readFileSync(file, "utf8"), { lineCounter: lines }), lines };
      parsed.set(file, entry);
    }
    let node: unknown = entry.document.contents as Node | null;
    let offset: number | undefined;
    for (const word of words) {
      // A key gone from the head (a removed field) is placed on the list it was in, where the diff shows it.
      const found = findKey(node, KEYS[word] ?? word) ?? (isMap(node) ? findKey(node, "properties") : undefined);
      if (!found) continue;
      node = found.value;
      offset = found.offset;
    }
    const line = offset === undefined ? 1 : entry.lines.linePos(offset).line;
    return { file: path.relative(repoDir, file).split(path.sep).join("/"), line };
  };
  const wordsOf = (text: string) => text.match(/[A-Za-z0-9_][\w.-]*/g)?.filter((word) => word !== "[]") ?? [];

  return (location) => {
    const component = /^#\/components\/([^/ ]+)\/([^/ ]+)(?:\s+(.*))?$/.exec(location);
    if (component) {
      const file = components.get(`${component[1]}/${component[2]}`);
      // Field paths print as `.a.b`: one key each.
      return file ? lineIn(file, wordsOf((component[3] ?? "").replace(/\./g, " "))) : undefined;
    }
    const webhook = /^webhook (\S+) ([A-Z]+)(?:\s+(.*))?$/.exec(location);
    if (webhook) {
      const file = webhooks.get(webhook[1]!);
      return file ? lineIn(file, [webhook[2]!.toLowerCase(), ...wordsOf(webhook[3] ?? "")]) : undefined;
    }
    const operation = /^([A-Z]+) (\/\S*)(?:\s+(.*))?$/.exec(location);
    if (operation && METHODS.has(operation[1]!)) {
      const file = paths.get(operation[2]!);
      return file ? lineIn(file, [operation[1]!.toLowerCase(), ...wordsOf(operation[3] ?? "")]) : undefined;
    }
    if (location.startsWith("#/")) return lineIn(rootFile, wordsOf(location.slice(2).replace(/\//g, " ")));
    return undefined;
  };
}
