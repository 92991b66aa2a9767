/**
 * The sandbox section of docs/partners.md against what it documents: every control operation of the control
 * contract has a request in "The control API", every `npx partner-api sandbox …` line names a real command,
 * the TypeScript samples compile against the real client and devkit, and the section speaks to partners (the
 * API description, never the source; commands a partner has, never repository scripts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { partnerApiCli } from "../../devkit/src/cli/index.ts";
import type { Command, CommandGroup } from "../../scripts/lib/cli.ts";
import { typecheckSamples } from "../../scripts/lib/docs/typecheck.ts";
import { repoRoot, sandboxBundleJsonPath } from "../../scripts/lib/paths.ts";
import { HTTP_METHODS } from "../../src/http-methods.ts";
import { SOURCE_TALK } from "../contract-source/partner-language.ts";

const guide = readFileSync(path.join(repoRoot, "docs", "partners.md"), "utf8");
const section = guide.slice(guide.indexOf("## The sandbox ("), guide.indexOf("## The mock ("));
const controlApi = section.slice(section.indexOf("### The control API"), section.indexOf("### From TypeScript"));
const control = JSON.parse(readFileSync(sandboxBundleJsonPath, "utf8"));

/** The fenced blocks of a language in a piece of the guide. */
function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map((match) => match[1]!);
}

describe("the guide's sandbox section", () => {
  it("shows a request for every control operation, with its method and path", () => {
    const requests = blocks(controlApi, "sh").join("\n");
    const operations: string[] = [];
    for (const [template, item] of Object.entries<Record<string, { operationId: string }>>(control.paths))
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (!operation) continue;
        operations.push(operation.operationId);
        const line = requests
          .split("\n")
          .find((candidate) => new RegExp(`# ${operation.operationId}\\b`).test(candidate));
        expect(line, `${operation.operationId} has no request`).toBeDefined();
        const pathShown = template.replace("/_sandbox", "$S").replace(/\{(\w+)\}/g, "<$1>");
        expect(line, operation.operationId).toContain(pathShown);
        const explicit = line!.match(/-X (\w+)/)?.[1] ?? "GET";
        expect(explicit, operation.operationId).toBe(method.toUpperCase());
      }
    expect(operations.length).toBeGreaterThan(30);
  });

  it("names only commands partner-api has", () => {
    const known = new Set<string>();
    const walk = (entry: Command | CommandGroup, prefix: string[]) => {
      known.add(prefix.join(" "));
      if ("commands" in entry) for (const [name, sub] of Object.entries(entry.commands)) walk(sub, [...prefix, name]);
    };
    walk(partnerApiCli, []);
    const named = [...section.matchAll(/npx partner-api ((?:[a-z]+ ?)+)/g)].map((match) => match[1]!.trim());
    expect(named.length).toBeGreaterThan(15);
    for (const words of named) {
      // The longest prefix of the words that is a command: the rest are its arguments.
      const parts = words.split(" ");
      const command = parts.map((_, i) => parts.slice(0, parts.length - i).join(" ")).find((p) => known.has(p));
      expect(command, words).toBeDefined();
      expect(command!.startsWith("sandbox") || command === "mock" || command === "webhooks", words).toBe(true);
    }
  });

  it("speaks to partners: the API description, commands they have", () => {
    expect(section).not.toMatch(SOURCE_TALK);
    expect(section).not.toMatch(/npm run|devkit\/src|openapi\/sandbox/);
  });

  it("has TypeScript samples that compile against the client and the devkit", async () => {
    const samples = blocks(section, "ts").map((source, index) => ({ name: `sandbox_${index}`, source }));
    expect(samples.length).toBeGreaterThanOrEqual(5);
    const errors = await typecheckSamples(samples);
    expect(errors.map((e) => `${e.sample}:${e.line} ${e.message}`)).toEqual([]);
  }, 120_000);
});
