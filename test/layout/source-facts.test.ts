/**
 * The layout tests' parse cache (test/helpers/source-facts.ts): a file whose text was read before is not read
 * again; a change of the text or of the reading code is.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { importSpecifiers, perFile } from "../helpers/source-facts.ts";

const NAME = `probe-${process.pid}`;
afterAll(() =>
  rmSync(path.join(repoRoot, "node_modules", ".cache", "partner-api", `source-facts-${NAME}.json`), { force: true }),
);

describe("perFile", () => {
  it("reads a text once, and again under other settings or another reader", () => {
    const seen: string[] = [];
    const reader = (file: string, text: string) => {
      seen.push(file);
      return text.length;
    };
    const files = ["package.json", "tsconfig.json"];
    const first = perFile(NAME, files, reader);
    expect(seen).toEqual(files);
    expect(perFile(NAME, files, reader)).toEqual(first);
    expect(seen).toHaveLength(2);
    perFile(NAME, files, reader, "other settings");
    expect(seen).toHaveLength(4);
    const other = (file: string, text: string) => {
      seen.push(file);
      return -text.length;
    };
    expect(perFile(NAME, ["package.json"], other)).toEqual([-first[0]!]);
    expect(seen).toHaveLength(5);
  });
});

describe("importSpecifiers", () => {
  it("gives each file's imports of every kind, as TypeScript reads them", () => {
    const [bench] = importSpecifiers(["bench/cli.ts"]);
    expect(bench).toEqual(expect.arrayContaining(["partner-api-devkit/cli", "./harness.ts"]));
  });
});
