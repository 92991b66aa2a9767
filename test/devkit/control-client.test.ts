/**
 * One control client (issue 29): the sandbox's control API is called through openapi-fetch over the control
 * contract's generated types, in one module for Node (devkit/src/sandbox/control-client.ts: the CLI, verify,
 * partners' tests) and its typed twin in the dashboard (page/api.js, the same library and types, checked in JSDoc).
 * No other file under devkit/src sends a request to a /_sandbox/ path by hand or builds a client of its own. The
 * dashboard's live log follows the stream with the browser's EventSource, which is no request/answer client.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SOURCE = path.join(ROOT, "devkit/src");

/** The two homes of the control client. */
const CLIENTS = new Set(["devkit/src/sandbox/control-client.ts", "devkit/src/dashboard/page/api.js"]);
/** A hand-made request: fetch (or a wrapper of it, fetchBounded), a Request, node:http's request or get. */
const SENDS = /\bfetch\w*\s*\(|\bnew\s+Request\s*\(|\bhttps?\.(?:request|get)\s*\(|\bhttpRequest\s*\(/;
const CONTROL_PATH = /\/_sandbox\//;
/** A string-path client's call: the method as a string, then a /_sandbox/ path (the typed client's is `.GET(path)`). */
const STRING_PATH_CALL = /["'`](?:GET|POST|PUT|PATCH|DELETE)["'`]\s*,\s*["'`][^"'`]*\/_sandbox\//;
/** A client built over the control contract's generated paths. */
const BUILDS_CLIENT = /createClient\s*<|createClient\s*\(/;
const CONTROL_TYPES = /generated\/sandbox\.js/;

async function sources(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sources(full)));
    else if (/\.(?:ts|js)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) files.push(full);
  }
  return files;
}

/** Each file under devkit/src that talks to the control API other than through the one client, and how. */
async function otherClients(): Promise<string[]> {
  const found: string[] = [];
  for (const file of await sources(SOURCE)) {
    const name = path.relative(ROOT, file).split(path.sep).join("/");
    if (CLIENTS.has(name)) continue;
    const text = await readFile(file, "utf8");
    const lines = text.split("\n");
    lines.forEach((line, index) => {
      if (SENDS.test(line) && CONTROL_PATH.test(line))
        found.push(`${name}:${index + 1}: sends a request to a /_sandbox/ path by hand`);
      if (STRING_PATH_CALL.test(line)) found.push(`${name}:${index + 1}: calls the control API by a string path`);
    });
    if (BUILDS_CLIENT.test(text) && CONTROL_TYPES.test(text)) found.push(`${name}: builds a control client`);
  }
  return found;
}

describe("one control client", () => {
  it("no file under devkit/src calls the control API but through sandbox/control-client.ts or the page's api.js", async () => {
    expect(await otherClients()).toEqual([]);
  });

  it("both homes build openapi-fetch over the control contract's generated paths, the page's checked in JSDoc", async () => {
    const node = await readFile(path.join(ROOT, "devkit/src/sandbox/control-client.ts"), "utf8");
    expect(node).toMatch(/import createClient[^;]+from "openapi-fetch"/);
    expect(node).toMatch(/paths as ControlPaths } from "..\/..\/generated\/sandbox\.js"/);
    const page = await readFile(path.join(ROOT, "devkit/src/dashboard/page/api.js"), "utf8");
    expect(page.startsWith("// @ts-check")).toBe(true);
    expect(page).toContain('import createClient from "./openapi-fetch.js"');
    expect(page).toContain('@type {import("openapi-fetch").Client<ControlPaths>}');
    expect(page).toContain('import("../../../generated/sandbox.js").paths} ControlPaths');
  });

  it("the check can fail: a file that fetches a /_sandbox/ path by hand, or builds its own client, is caught", () => {
    const handMade = 'const answer = await fetch(base + "/_sandbox/clock", { method: "GET" });';
    expect(SENDS.test(handMade) && CONTROL_PATH.test(handMade)).toBe(true);
    const built = 'import type { paths } from "../../../generated/sandbox.js"; const c = createClient<paths>({});';
    expect(BUILDS_CLIENT.test(built) && CONTROL_TYPES.test(built)).toBe(true);
  });
});
