import { describe, expect, it } from "vitest";
import { buildCommand } from "../../scripts/build.ts";
import { runInProcess } from "../helpers/run.ts";

// The build itself runs as a process, as prepack does, in test/consumer/package.slow.test.ts.
describe("npm run build", () => {
  it("--help says what it builds and that it prints to stderr only", async () => {
    const run = await runInProcess(buildCommand, ["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("compile src/ to dist/");
    expect(run.stdout).toContain("npm pack --json");
  });

  it("takes no arguments: a stray one is bad input, named, before anything is cleaned", async () => {
    const run = await runInProcess(buildCommand, ["dist2"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unexpected argument "dist2"');
    expect(run.stderr).not.toContain("clean");
  });
});
