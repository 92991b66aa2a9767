/**
 * No valid-looking input crashes the gate: random edits of this contract's bundle (keys deleted, values
 * swapped for other types, subtrees copied elsewhere, `$ref`s pointed at other components) are compared in
 * both directions, and every run ends in a list of changes, never an exception (which would be exit 3).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Document, Json } from "../../scripts/lib/diff/resolve.ts";
import { compareDocuments } from "../../scripts/lib/diff/walk.ts";
import { bundleJsonPath } from "../../scripts/lib/paths.ts";
import { seededRandom } from "../helpers/random.ts";

const contract = JSON.parse(readFileSync(bundleJsonPath, "utf8")) as Document;
// A $ref loop with no schema in it: valid references, nothing at the end.
(contract.components as Record<string, Record<string, Json>>).schemas!.Loop = { $ref: "#/components/schemas/Loop" };

type Container = Record<string, Json> | Json[];

function containers(value: Json, found: Container[] = []): Container[] {
  if (Array.isArray(value)) {
    found.push(value);
    for (const item of value) containers(item, found);
  } else if (value && typeof value === "object") {
    found.push(value);
    for (const item of Object.values(value)) containers(item, found);
  }
  return found;
}

const componentRefs = Object.keys((contract.components as Record<string, Record<string, Json>>).schemas!).map(
  (name) => `#/components/schemas/${name}`,
);
const replacements: Json[] = [
  null,
  true,
  false,
  0,
  -1,
  2.5,
  "",
  "x",
  [],
  {},
  { type: "null" },
  { $ref: componentRefs[0]! },
  { $ref: "#/components/schemas/Loop" },
];

function mutate(document: Document, next: () => number, edits: number): Document {
  const copy = structuredClone(document);
  for (let i = 0; i < edits; i++) {
    const all = containers(copy as Json);
    const target = all[Math.floor(next() * all.length)]!;
    const keys = Array.isArray(target) ? target.map((_, index) => index) : Object.keys(target);
    if (keys.length === 0) continue;
    const key = keys[Math.floor(next() * keys.length)]!;
    const pick = next();
    const set = (value: Json) => ((target as Record<string | number, Json>)[key] = value);
    if (key === "$ref") set(componentRefs[Math.floor(next() * componentRefs.length)]!);
    else if (pick < 0.35 && !Array.isArray(target)) delete (target as Record<string, Json>)[key as string];
    else if (pick < 0.75) set(structuredClone(replacements[Math.floor(next() * replacements.length)]!));
    else set(structuredClone(all[Math.floor(next() * all.length)]!) as Json);
  }
  return copy;
}

/** Seeds `from` to `to`, each compared in both directions (a comparison of the whole bundle takes tens of ms). */
function compareSeeds(from: number, to: number) {
  for (let seed = from; seed <= to; seed++) {
    const { next } = seededRandom(seed);
    const head = mutate(contract, next, 1 + Math.floor(next() * 6));
    for (const [a, b] of [
      [contract, head],
      [head, contract],
    ] as const) {
      let changes: unknown[] = [];
      expect(() => {
        changes = compareDocuments(a, b, { today: "2026-01-01" });
      }, `seed ${seed}`).not.toThrow();
      expect(Array.isArray(changes)).toBe(true);
    }
  }
}

describe("random edits never crash the comparison", () => {
  it("seeds 1 to 5, both directions", () => compareSeeds(1, 5));

  // Over 4 s of CPU on its own: npm run test:all runs it, npm test the five seeds above (docs/api-team.md, "The fast command and the whole set").
  it("seeds 6 to 60, both directions", { tags: ["slow"] }, () => compareSeeds(6, 60));
});
