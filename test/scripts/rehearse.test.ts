/**
 * The contract-change rehearsal (scripts/rehearse.ts): its rename, its checks of the input, and the copy it works
 * in. The full run (lint, bundle, generate, typecheck and npm test in a copy: minutes) is what the API team's guide
 * tells people to run; here one step runs in a real copy, so the command is proven end to end without its cost.
 */
import { existsSync, lstatSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bundleJsonPath, repoRoot } from "../../scripts/lib/paths.ts";
import {
  checkRename,
  copyRepository,
  editableFiles,
  operationIds,
  parseSteps,
  rehearseCommand,
  renameOperation,
  renameWord,
} from "../../scripts/rehearse.ts";
import { listOperations } from "../contract/support/contract.ts";
import { runInProcess } from "../helpers/run.ts";

const ids = operationIds(JSON.parse(readFileSync(bundleJsonPath, "utf8")));
// Taken from the contract, never written here: a rehearsal renames every whole-word hit, this file's too.
const cardHolderRead = ids.find((id) => /^getCardHolder/.test(id))!;
const taken = ids.find((id) => id !== cardHolderRead)!;

describe("the rename", () => {
  it("reads every operationId of the contract, each once", () => {
    const bundle = JSON.parse(readFileSync(bundleJsonPath, "utf8"));
    expect(ids).toHaveLength(listOperations(bundle).length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(cardHolderRead).toBeDefined();
  });

  it("renames whole words only: links' keys, handler names, quoted and backticked names", () => {
    const text = [
      "operationId: getWidget",
      "        getWidget:",
      '  getWidget(call) { return "getWidget" }',
      "as `getWidget` returns it; getWidgets and getWidgetById and $getWidget stay",
    ].join("\n");
    const { text: renamed, count } = renameWord(text, "getWidget", "readWidget");
    expect(count).toBe(5);
    expect(renamed).toContain("operationId: readWidget\n        readWidget:");
    expect(renamed).toContain("getWidgets and getWidgetById and $getWidget stay");
  });

  it("leaves the generated files to the steps, and history alone: releases, changelog, bench results, design notes", () => {
    expect(
      editableFiles([
        "openapi/paths/a.yaml",
        "generated/openapi.json",
        "release/versions/1.0.0.json",
        "CHANGELOG.md",
        "bench/RESULTS.md",
        "docs/design/contract-gate.md",
        "docs/api-team.md",
        "bench/cli.ts",
      ]),
    ).toEqual(["openapi/paths/a.yaml", "docs/api-team.md", "bench/cli.ts"]);
  });

  it("refuses an unknown operationId, a name that is not camelCase and one already taken, naming each", () => {
    expect(() => checkRename(ids, "getWidget", "x")).toThrow(/"getWidget" is not an operationId/);
    expect(() => checkRename(ids, cardHolderRead, "Get-Card")).toThrow(/camelCase .* got "Get-Card"/);
    expect(() => checkRename(ids, cardHolderRead, taken)).toThrow(new RegExp(`"${taken}" is already an operationId`));
    expect(() => checkRename(ids, cardHolderRead, `${cardHolderRead}Renamed`)).not.toThrow();
  });

  it("takes steps by name, in the guide's order", () => {
    expect(parseSteps(undefined)).toEqual(["lint", "bundle", "generate", "typecheck", "test"]);
    expect(parseSteps("typecheck,bundle")).toEqual(["bundle", "typecheck"]);
    expect(() => parseSteps("bundle,deploy")).toThrow(/--steps takes some of .* got "bundle,deploy"/);
  });

  it("exits 2 on a change it does not know and on an unknown operationId, before copying anything", async () => {
    const wrongChange = await runInProcess(rehearseCommand, ["remove-field", "a", "b"]);
    expect(wrongChange.code).toBe(2);
    expect(wrongChange.stderr).toMatch(/the change must be rename-operation, got "remove-field"/);
    const unknown = await runInProcess(rehearseCommand, ["rename-operation", "nothing", "somethingElse"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/"nothing" is not an operationId/);
    expect(unknown.stderr).not.toMatch(/copy the repository/);
  });
});

describe("a copy of the repository", () => {
  it("holds the files, its own git and linked packages, and the rename reaches links, handlers and tests", {
    tags: ["slow"],
  }, async () => {
    const { dir, files } = await copyRepository(repoRoot);
    try {
      expect(files).toContain("openapi/openapi.yaml");
      expect(existsSync(path.join(dir, ".git", "HEAD"))).toBe(true);
      expect(lstatSync(path.join(dir, "node_modules", "vitest")).isSymbolicLink()).toBe(true);
      expect(existsSync(path.join(dir, "node_modules", ".cache"))).toBe(false);
      const renamedTo = `${cardHolderRead}Renamed`;
      const { changed } = await renameOperation(dir, files, cardHolderRead, renamedTo);
      expect(changed).toEqual(
        expect.arrayContaining([
          "openapi/paths/cards/v1_card-holders_{cardHolderId}.yaml",
          "openapi/paths/companies/v1_companies.yaml",
          "devkit/src/sandbox/flows/cards.ts",
          "test/contract-source/fidelity.test.ts",
        ]),
      );
      expect(changed.some((file) => file.startsWith("generated/"))).toBe(false);
      const handler = readFileSync(path.join(dir, "devkit/src/sandbox/flows/cards.ts"), "utf8");
      expect(handler).toContain(`${renamedTo}(`);
      expect(handler).not.toMatch(new RegExp(`\\b${cardHolderRead}\\b`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
