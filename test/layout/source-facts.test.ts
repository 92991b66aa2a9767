/**
 * The layout tests' parse cache (test/helpers/source-facts.ts): a file whose text was read before is not read
 * again; a change of the text or of the reading code is. And the record of the files a check passed on
 * (test/helpers/passed-files.ts): a file is checked again once its bytes or the check's salt change.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHECK_CACHE_DIR, filesUnder } from "../../scripts/lib/check-stamp.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { changedSincePass, repositoryFiles } from "../helpers/passed-files.ts";
import { importSpecifiers, perFile } from "../helpers/source-facts.ts";

const NAME = `probe-${process.pid}`;
afterAll(() => rmSync(path.join(CHECK_CACHE_DIR, `source-facts-${NAME}.json`), { force: true }));

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

describe("changedSincePass", () => {
  const cache = path.relative(repoRoot, CHECK_CACHE_DIR);
  const files = [0, 1, 2].map((index) => path.join(cache, `probe-${process.pid}-${index}.txt`));
  const name = `probe-${process.pid}`;
  afterAll(() => {
    for (const file of [...files, path.join(cache, `passed-${name}.json`)])
      rmSync(path.join(repoRoot, file), { force: true });
  });

  it("gives every file first, none once passed, then the ones whose bytes changed, and all under a new salt", () => {
    mkdirSync(path.join(repoRoot, cache), { recursive: true });
    for (const file of files) writeFileSync(path.join(repoRoot, file), file);
    expect(changedSincePass(name, files, "v1").changed).toEqual(files);
    changedSincePass(name, files, "v1").passed();
    expect(changedSincePass(name, files, "v1").changed).toEqual([]);
    writeFileSync(path.join(repoRoot, files[1]!), "other bytes");
    // Not passed yet: it stays changed until a run that passed on it says so.
    expect(changedSincePass(name, files, "v1").changed).toEqual([files[1]]);
    expect(changedSincePass(name, files, "v1").changed).toEqual([files[1]]);
    expect(changedSincePass(name, files, "v2").changed).toEqual(files);
  });

  it("names the files passed on that are gone (a whole program's check runs again)", () => {
    changedSincePass(name, files, "v3").passed();
    expect(changedSincePass(name, files, "v3").removed).toEqual([]);
    const fewer = changedSincePass(name, files.slice(1), "v3");
    expect(fewer.changed).toEqual([]);
    expect(fewer.removed).toEqual([files[0]]);
  });

  it("lists the files under folders by their endings, git-ignored ones too, node_modules left out", () => {
    const under = filesUnder(repoRoot, ["openapi/workflows", "tsconfig.json"], [".yaml", ".json"]);
    expect(under).toContain("tsconfig.json");
    expect(under.filter((file) => file.startsWith("openapi/workflows/")).length).toBeGreaterThan(0);
    expect(filesUnder(repoRoot, ["devkit"], [".json"]).some((file) => file.includes("node_modules"))).toBe(false);
  });

  it("lists the repository's files by their endings", () => {
    const listed = repositoryFiles([".yaml"]);
    expect(listed).toContain("openapi/openapi.yaml");
    expect(listed.every((file) => file.endsWith(".yaml"))).toBe(true);
  });
});
