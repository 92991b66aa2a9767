/**
 * `npm run test:runtimes` catches what the compiler does not: a copy of the repository gets a Node-only change in the
 * client's web path (a `Buffer` in createPartnerClient, which `tsc` accepts: the repository compiles with Node's
 * types), and the copy's own `npm run test:runtimes` must fail in the runtimes without Node's globals (Chromium, and
 * workerd under a compatibility date without them) while Node still passes. The unchanged code passing is the
 * matrix's own run (`.ci/run`).
 */
import { execFile } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSandbox } from "../../bench/context.ts";
import { hasChromium } from "../../scripts/lib/chromium.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { INSTALL_HINT, type Matrix, matrixForTests } from "../../scripts/lib/runtimes.ts";

const run = promisify(execFile);

/** The Node-only change: Buffer in a line every client runs, whatever the runtime. */
const ANCHOR = "  const apiKey = checkApiKey(options.apiKey);\n";
const NODE_ONLY = `${ANCHOR}  if (Buffer.byteLength(apiKey) === 0) throw new Error("unreachable");\n`;

let copy: string | undefined;
let matrix: Matrix | undefined;

beforeAll(async () => {
  matrix = await matrixForTests("the Node-only change check");
  if (!matrix) console.warn(`[node-only] SKIPPED: the runtime matrix is not installed (${INSTALL_HINT})`);
  else hasChromium(); // under CI, a missing Chromium fails here rather than as a skip
}, 60_000);

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

describe("a Node-only change in the client's web path", () => {
  it("fails npm run test:runtimes in Chromium and workerd, not in Node", async (context) => {
    if (!matrix) return context.skip();
    copy = await makeSandbox(repoRoot);
    const client = path.join(copy, "src", "client.ts");
    const source = await readFile(client, "utf8");
    expect(source).toContain(ANCHOR);
    await writeFile(client, source.replace(ANCHOR, NODE_ONLY));
    const targets = ["node24", "workerd", ...(hasChromium() ? ["chromium"] : [])];
    const outcome = await run("npm", ["run", "--silent", "test:runtimes", "--", "--only", targets.join(",")], {
      cwd: copy,
      encoding: "utf8",
      timeout: 240_000,
    }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code, stdout: `${error.stdout}` }),
    );
    expect(outcome.code, outcome.stdout).toBe(1);
    expect(outcome.stdout).toMatch(/^✓ node24 /m);
    expect(outcome.stdout).toMatch(/^✗ workerd .*compatibility date 2026-08-01.*Buffer is not defined/m);
    if (hasChromium()) expect(outcome.stdout).toMatch(/^✗ chromium .*Buffer is not defined/m);
    expect(outcome.stdout).toMatch(new RegExp(`^1 passed, ${targets.length - 1} failed$`, "m"));
  }, 300_000);
});
