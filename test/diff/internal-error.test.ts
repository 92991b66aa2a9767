/** A bug in the comparison exits 3 and says so: a crash never reads as the gate's verdict (exit 1). */
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { diffCommand } from "../../scripts/diff.ts";
import * as walk from "../../scripts/lib/diff/walk.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { runInProcess } from "../helpers/run.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an internal error", () => {
  it("exits 3, not 1, and names it a bug", async () => {
    vi.spyOn(walk, "compareDocuments").mockImplementation(() => {
      throw new TypeError("Cannot read properties of undefined (reading 'type')");
    });
    const base = path.join(repoRoot, "test", "diff", "fixtures", "base.yaml");
    const run = await runInProcess(diffCommand, ["--base", base, "--head", base]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("internal error (a bug, not a verdict)");
    expect(run.stderr).toContain("Cannot read properties of undefined");
    expect(run.stdout).toBe("");
  });

  it("compares again once the replacement is gone", async () => {
    const base = path.join(repoRoot, "test", "diff", "fixtures", "base.yaml");
    const run = await runInProcess(diffCommand, ["--base", base, "--head", base]);
    expect(run.code).toBe(0);
  });
});
