import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import {
  BACKGROUND_NICE,
  exitCodeOf,
  FAST_STEPS,
  fastSteps,
  report,
  runSteps,
  type StepResult,
  shellQuote,
} from "../../scripts/test-fast.ts";

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

const result = (name: string, code: number | null, extra: Partial<StepResult> = {}): StepResult => ({
  name,
  code,
  signal: null,
  output: "",
  ms: 1234,
  ...extra,
});

describe("npm test's steps", () => {
  it("are package.json's check, typecheck:fast and test:fast-vitest, the arguments going to vitest only, quoted", async () => {
    const { scripts } = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const steps = fastSteps(scripts, ["test/client/", "-t", "it's a name"]);
    expect(steps.map((step) => step.name)).toEqual([...FAST_STEPS]);
    expect(steps[0]!.command).toBe(scripts.check);
    expect(steps[1]!.command).toBe(scripts["typecheck:fast"]);
    expect(steps[2]!.command).toBe(`${scripts["test:fast-vitest"]} test/client/ -t 'it'\\''s a name'`);
    expect(steps.map((step) => step.live)).toEqual([false, false, true]);
    expect(steps.map((step) => step.nice)).toEqual([BACKGROUND_NICE, BACKGROUND_NICE, 0]);
  });

  it("name a script package.json lacks", () => {
    expect(() => fastSteps({ check: "biome check ." }, [])).toThrow('package.json has no script "typecheck:fast"');
  });

  it("quote for sh: plain words as they are, anything else in single quotes", () => {
    expect(shellQuote("test/x.test.ts")).toBe("test/x.test.ts");
    expect(shellQuote("!slow")).toBe("'!slow'");
    expect(shellQuote("a b; rm -rf /")).toBe("'a b; rm -rf /'");
    expect(shellQuote("")).toBe("''");
  });
});

describe("running the steps side by side", () => {
  it("runs them at the same time, keeps each held step's output and code, and reports every failure by name", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "partner-api-test-fast-"));
    scratch.push(dir);
    // Each of the first two waits for the other's mark: run one after the other, the first would give up (exit 9).
    const waitFor = (mine: string, theirs: string, code: number) =>
      `node -e "const fs=require('fs');fs.writeFileSync('${mine}','');const t=Date.now();(function w(){if(fs.existsSync('${theirs}')){console.log('saw ${theirs}');console.error('err of ${mine}');process.exit(${code})}if(Date.now()-t>60000)process.exit(9);setTimeout(w,20)})()"`;
    const results = await runSteps(
      [
        { name: "a", command: waitFor("a", "b", 0), live: false, nice: 0 },
        { name: "b", command: waitFor("b", "a", 2), live: false, nice: 0 },
        // Its niceness (this process's plus 7, at most 19) reaches the command the shell starts: node prints its own.
        {
          name: "c",
          command: `node -e "console.log(require('os').getPriority());process.exit(1)"`,
          live: false,
          nice: 7,
        },
      ],
      { cwd: dir },
    );
    expect(results.map((step) => [step.name, step.code])).toEqual([
      ["a", 0],
      ["b", 2],
      ["c", 1],
    ]);
    // stdout and stderr come through two pipes: both are kept, in the order they arrived.
    expect(results[0]!.output.split("\n").sort()).toEqual(["", "err of a", "saw b"]);
    expect(results[1]!.output.split("\n").sort()).toEqual(["", "err of b", "saw a"]);
    expect(results[2]!.output).toBe(`${Math.min(19, os.getPriority() + 7)}\n`);
    expect(exitCodeOf(results)).toBe(1);
    const text = report(results, 5000);
    expect(text).toMatch(/^── npm run a ──\n(saw b\nerr of a|err of a\nsaw b)\n/);
    expect(text).toContain("✓ npm run a: passed (");
    expect(text).toContain("✗ npm run b: failed, exit 2 (");
    expect(text).toContain("✗ npm run c: failed, exit 1 (");
    expect(text).toContain("npm test: b, c failed (5.0 s in all)");
  });
});

describe("the verdict", () => {
  it("is 0 when every step passed, and says so with the time", () => {
    const results = [result("check", 0), result("typecheck", 0), result("test:fast-vitest", 0)];
    expect(exitCodeOf(results)).toBe(0);
    expect(report(results, 28_400)).toBe(
      "✓ npm run check: passed (1.2 s)\n✓ npm run typecheck: passed (1.2 s)\n✓ npm run test:fast-vitest: passed (1.2 s)\nnpm test: 3 steps passed side by side in 28.4 s\n",
    );
  });

  it("is 1 for a step's own no, whatever its code (tsc says 2), and 3 for a step killed or never started", () => {
    expect(exitCodeOf([result("check", 0), result("typecheck", 2)])).toBe(1);
    expect(exitCodeOf([result("check", 1), result("typecheck", 0)])).toBe(1);
    const killed = result("test:fast-vitest", null, { signal: "SIGKILL" });
    expect(exitCodeOf([result("check", 1), killed])).toBe(3);
    expect(report([killed], 10)).toContain("✗ npm run test:fast-vitest: killed by SIGKILL");
    const missing = result("check", null, { error: "spawn sh ENOENT" });
    expect(exitCodeOf([missing])).toBe(3);
    expect(report([missing], 10)).toContain("✗ npm run check: could not start: spawn sh ENOENT");
  });
});
