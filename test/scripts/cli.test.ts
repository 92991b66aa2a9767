import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CommandGroup,
  defineCommand,
  describeValue,
  EXIT,
  isEntryPoint,
  JobFailure,
  optionOrEnv,
  parseHost,
  parseInteger,
  parsePositiveNumber,
  step,
  UsageError,
  untilAborted,
} from "../../scripts/lib/cli.ts";
import { formatDuration } from "../../scripts/lib/log.ts";
import { runInProcess } from "../helpers/run.ts";

/** A command whose outcome the test picks with --outcome. */
const probe = defineCommand({
  name: "probe",
  summary: "does what it is told",
  usage: "Usage: probe [--outcome ok|no|bad|bug|quiet] [--count n] [name]",
  options: { outcome: { type: "string" }, count: { type: "string" } },
  positionals: { max: 1 },
  run({ values, positionals, io }) {
    io.out(`name=${positionals[0] ?? "-"} count=${parseInteger(values.count, "--count", 1, 9) ?? "-"}`);
    if (values.outcome === "no") throw new JobFailure("the gate says no");
    if (values.outcome === "bad") throw new UsageError("--outcome: bad on purpose");
    if (values.outcome === "bug") throw new TypeError("undefined is not a function");
    return values.outcome === "quiet" ? undefined : "probed";
  },
});

const group: CommandGroup = {
  name: "kit",
  summary: "a group of commands",
  version: "1.2.3",
  commands: { probe, nested: { name: "kit nested", summary: "a nested group", commands: { probe } } },
};

describe("runCommand", () => {
  it("exit 0: the handler's summary and the time it took go to stderr, its results to stdout", async () => {
    const run = await runInProcess(probe, ["--count", "3", "cards"]);
    expect(run).toMatchObject({ code: EXIT.ok, stdout: "name=cards count=3\n" });
    expect(run.stderr).toMatch(/^probed in \d+ ms\n$/);
    expect((await runInProcess(probe, ["--outcome", "quiet"])).stderr).toMatch(/^done in \d+ ms\n$/);
  });

  it("exit 1: the job's own no, said as a verdict with the time", async () => {
    const run = await runInProcess(probe, ["--outcome", "no"]);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toMatch(/^FAILED: the gate says no \(after \d+ ms\)\n$/);
  });

  it("exit 2: bad input from the handler, a bad option value, an unknown option or a stray argument, each named", async () => {
    const cases: [string[], string][] = [
      [["--outcome", "bad"], "error: --outcome: bad on purpose"],
      [["--count", "12"], 'error: --count must be a whole number from 1 to 9, got "12"'],
      [["--colour", "red"], "error: Unknown option '--colour'"],
      [["a", "b"], 'error: unexpected argument "b" (probe --help)'],
    ];
    for (const [argv, message] of cases) {
      const run = await runInProcess(probe, argv);
      expect(run.code, argv.join(" ")).toBe(EXIT.badInput);
      expect(run.stderr, argv.join(" ")).toContain(message);
    }
    const needsOne = defineCommand({ ...probe, positionals: { min: 1, max: 1 } });
    expect((await runInProcess(needsOne, [])).stderr).toContain("error: missing argument (probe --help)");
  });

  it("exit 3: anything else is a bug, never a verdict, with its stack", async () => {
    const run = await runInProcess(probe, ["--outcome", "bug"]);
    expect(run.code).toBe(EXIT.internal);
    expect(run.stderr).toMatch(
      /^internal error \(a bug, not a verdict\) after \d+ ms: TypeError: undefined is not a function\n {4}at /,
    );
  });

  it("--help and -h print the name, summary and usage to stdout and run nothing", async () => {
    for (const flag of ["--help", "-h"]) {
      const run = await runInProcess(probe, [flag, "--outcome", "bug"]);
      expect(run.code).toBe(EXIT.ok);
      expect(run.stdout).toBe(
        "probe: does what it is told\n\nUsage: probe [--outcome ok|no|bad|bug|quiet] [--count n] [name]\n",
      );
      expect(run.stderr).toBe("");
    }
  });
});

describe("command groups", () => {
  it("dispatch to a subcommand, nested too, with the rest of the arguments", async () => {
    expect(await runInProcess(group, ["probe", "x"])).toMatchObject({ code: 0, stdout: "name=x count=-\n" });
    expect(await runInProcess(group, ["nested", "probe", "--outcome", "no"])).toMatchObject({ code: 1 });
  });

  it("list their commands on --help (exit 0) and without a command (exit 2)", async () => {
    const help = await runInProcess(group, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: kit <command> [options]");
    expect(help.stdout).toMatch(/ {2}probe {3}does what it is told\n {2}nested {2}a nested group/);
    const bare = await runInProcess(group, []);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("Commands:");
  });

  it("name an unknown command and the ones there are", async () => {
    const run = await runInProcess(group, ["prob"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('error: unknown command "prob"; expected one of probe, nested (kit --help)\n');
  });

  it("with a default, run it when no command is named (no argument, or an option first) and say so in --help", async () => {
    const defaulted: CommandGroup = { ...group, default: "probe" };
    expect(await runInProcess(defaulted, [])).toMatchObject({ code: 0, stdout: "name=- count=-\n" });
    expect(await runInProcess(defaulted, ["--count", "3"])).toMatchObject({ code: 0, stdout: "name=- count=3\n" });
    expect(await runInProcess(defaulted, ["nested", "probe", "y"])).toMatchObject({ stdout: "name=y count=-\n" });
    const help = await runInProcess(defaulted, ["--help"]);
    expect(help.stdout).toContain(
      "Usage: kit [options]            the same as kit probe [options]\n       kit <command>",
    );
    expect((await runInProcess(defaulted, ["-v"])).stdout).toBe("1.2.3\n");
    expect((await runInProcess(defaulted, ["prob"])).code).toBe(2);
  });

  it("print their version on --version and -v", async () => {
    for (const flag of ["--version", "-v"])
      expect(await runInProcess(group, [flag])).toMatchObject({ code: 0, stdout: "1.2.3\n" });
    expect((await runInProcess({ ...group, version: undefined }, ["--version"])).stdout).toBe("unknown\n");
  });
});

describe("value checks", () => {
  it("describeValue quotes strings, names nothing, and cuts a long value", () => {
    expect(describeValue("abc")).toBe('"abc"');
    expect(describeValue(42)).toBe("42");
    expect(describeValue(undefined)).toBe("nothing");
    const long = describeValue("x".repeat(200));
    expect(long).toHaveLength(81);
    expect(long.endsWith("…")).toBe(true);
  });

  it("parseInteger takes whole numbers in range, leaves an absent value absent, and names the option otherwise", () => {
    expect(parseInteger("7", "--n", 1, 9)).toBe(7);
    expect(parseInteger(" -3 ", "--n", -5, 5)).toBe(-3);
    expect(parseInteger(undefined, "--n", 1, 9)).toBeUndefined();
    expect(parseInteger("", "--n", 1, 9)).toBeUndefined();
    for (const bad of ["0", "10", "2.5", "1e3", "seven", "0x5"]) {
      expect(() => parseInteger(bad, "--n", 1, 9), bad).toThrow(UsageError);
      expect(() => parseInteger(bad, "--n", 1, 9), bad).toThrow(`--n must be a whole number from 1 to 9, got "${bad}"`);
    }
  });

  it("parsePositiveNumber takes decimals above 0 up to max", () => {
    expect(parsePositiveNumber("0.5", "--rate", 10)).toBe(0.5);
    expect(parsePositiveNumber("10", "--rate", 10)).toBe(10);
    expect(parsePositiveNumber(undefined, "--rate", 10)).toBeUndefined();
    for (const bad of ["0", "-1", "10.5", "fast", "Infinity", " "]) {
      expect(() => parsePositiveNumber(bad, "--rate", 10), bad).toThrow(
        `--rate must be a number greater than 0 and at most 10, got ${describeValue(bad)}`,
      );
    }
  });

  it("parseHost takes IP addresses and host names, and names the setting otherwise", () => {
    for (const host of ["127.0.0.1", "::1", "localhost", "docs.example.internal"])
      expect(parseHost(host, "--host")).toBe(host);
    expect(parseHost(undefined, "--host")).toBeUndefined();
    expect(() => parseHost("http://x", "DOCS_HOST")).toThrow(
      'DOCS_HOST must be an IP address or a host name (e.g. 127.0.0.1 or localhost), got "http://x"',
    );
  });
});

describe("optionOrEnv", () => {
  const variable = "CLI_TEST_SETTING";
  afterEach(() => {
    delete process.env[variable];
  });

  it("prefers the option, else a non-empty variable, and says which one it used", () => {
    process.env[variable] = "from-env";
    expect(optionOrEnv("from-option", "--setting", variable)).toEqual({ value: "from-option", name: "--setting" });
    expect(optionOrEnv(undefined, "--setting", variable)).toEqual({ value: "from-env", name: variable });
    process.env[variable] = "";
    expect(optionOrEnv(undefined, "--setting", variable).value).toBeUndefined();
  });
});

describe("helpers for handlers", () => {
  it("step prints a step's name, then its time or its failure, and passes the result or the error on", async () => {
    const lines: string[] = [];
    const io = { out: (t: string) => lines.push(`out ${t}`), err: (t: string) => lines.push(`err ${t}`) };
    expect(await step(io, "count", () => 3)).toBe(3);
    await expect(step(io, "explode", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(lines).toEqual([
      "err • count…",
      expect.stringMatching(/^err ✓ count \(\d+ ms\)$/),
      "err • explode…",
      expect.stringMatching(/^err ✗ explode failed after \d+ ms$/),
    ]);
  });

  it("untilAborted resolves when the signal aborts, at once when it already has", async () => {
    const controller = new AbortController();
    let stopped = false;
    const waiting = untilAborted(controller.signal).then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    controller.abort();
    await waiting;
    expect(stopped).toBe(true);
    await expect(untilAborted(AbortSignal.abort())).resolves.toBeUndefined();
  });

  it("isEntryPoint is true only for the file the process was started with", () => {
    expect(isEntryPoint(pathToFileURL(process.argv[1]!).href)).toBe(true);
    expect(isEntryPoint(import.meta.url)).toBe(false);
  });

  it("formatDuration reads as ms, seconds, then minutes", () => {
    expect(formatDuration(12.4)).toBe("12 ms");
    expect(formatDuration(1234)).toBe("1.23 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
  });
});
