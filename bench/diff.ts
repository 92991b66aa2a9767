/**
 * The contract gate: comparing two bundles of this repository's contract in process, and `npm run diff` end to
 * end (process start, loading both sides, comparing, printing), with two bundle files and with the working tree
 * bundled by Redocly. The budget is 2 s for two bundles; each ratio is the budget over the measured time
 * (≥ 1 meets it). The working-tree run is shown against the same budget without a target: Redocly's load and
 * bundling come on top of the diff.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { diffContracts } from "../scripts/lib/diff/report.ts";
import { type Document, isObject } from "../scripts/lib/diff/resolve.ts";
import { SOURCE_CONDITION } from "../scripts/lib/source.ts";
import type { Benchmark } from "./context.ts";
import { compareAlternating, compareCommands } from "./harness.ts";
import type { Figure, Ratio } from "./results.ts";

const BUDGET_MS = 2000;

/** The bundle with a change in a shared schema, so the comparison walks and reports something. */
export function mutatedCopy(document: Document): Document {
  const copy = structuredClone(document);
  const components = isObject(copy.components) ? copy.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const target = Object.values(schemas).find((schema) => isObject(schema) && isObject(schema.properties));
  if (isObject(target) && isObject(target.properties)) target.properties.benchAddedField = { type: "string" };
  return copy;
}

export const diffBenchmark: Benchmark = {
  name: "diff",
  title: "Contract gate (npm run diff)",
  async run({ size, repoRoot, sandbox, progress }) {
    const figures: Figure[] = [];
    const ratios: Ratio[] = [];
    const notes: string[] = [];
    const bundle = path.join(repoRoot, "generated", "openapi.json");
    const base = JSON.parse(readFileSync(bundle, "utf8")) as Document;
    const head = mutatedCopy(base);
    const found = diffContracts({ document: base, label: "base" }, { document: head, label: "head" }).changes;
    if (found.length === 0) throw new Error("diff: the mutated bundle shows no change; the measurement is meaningless");

    const compare = await compareAlternating({
      candidates: {
        compare: () => diffContracts({ document: base, label: "base" }, { document: head, label: "head" }),
      },
      rounds: size === "full" ? 15 : size === "quick" ? 5 : 1,
      targetBatchMs: size === "tiny" ? 1 : 50,
      onRound: (round, total) => progress(`diff compare: round ${round}/${total}`),
    });
    const compareMs = 1000 / compare.stats.compare!.medianOpsPerSecond;
    figures.push({ label: "compare two bundles in process (diffContracts)", value: compareMs, unit: "ms" });
    ratios.push({ label: "2 s budget / in-process comparison", value: BUDGET_MS / compareMs, target: 1 });

    const dir = await sandbox();
    const script = path.join(dir, "scripts", "diff.ts");
    const runs = await compareCommands(
      {
        "two bundle files": {
          command: process.execPath,
          args: [
            `--conditions=${SOURCE_CONDITION}`,
            script,
            "--base",
            "release/openapi.json",
            "--head",
            "generated/openapi.json",
          ],
          cwd: dir,
        },
        "working tree bundled": {
          command: process.execPath,
          args: [`--conditions=${SOURCE_CONDITION}`, script, "--base", "release/openapi.json"],
          cwd: dir,
        },
      },
      size === "full" ? 5 : size === "quick" ? 3 : 1,
      (label, round, total, ms) => progress(`diff ${label}: run ${round}/${total} ${Math.round(ms)} ms`),
    ).catch((error: Error) => {
      // Exit 1 is the gate's "no" (the working tree has breaking changes since the release), not a failed run.
      if (/exited with code 1/.test(error.message)) {
        notes.push("the gate failed on the working tree (exit 1): timings still measured the whole run");
        return undefined;
      }
      throw error;
    });
    if (runs) {
      for (const [label, run] of Object.entries(runs)) {
        figures.push({ label: `npm run diff end to end, ${label}`, value: run.medianMs, unit: "ms" });
        // The budget is for two bundles; bundling the working tree with Redocly comes on top (no target).
        const target = label === "two bundle files" ? { target: 1 } : {};
        ratios.push({ label: `2 s budget / npm run diff, ${label}`, value: BUDGET_MS / run.medianMs, ...target });
      }
    }
    notes.push(
      "End to end includes starting Node (which strips the TypeScript's types itself); 'working tree bundled' also loads Redocly (about a second) to bundle openapi/.",
    );
    return {
      name: "diff",
      title: "Contract gate (npm run diff)",
      method:
        "diffContracts on generated/openapi.json against a copy with one added field, alternating batches; then `npm run diff` as a process in a copy of the repository, median wall time.",
      figures,
      ratios,
      notes,
    };
  },
};
