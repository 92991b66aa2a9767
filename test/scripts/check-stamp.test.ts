/**
 * A passed check remembered by what it read (scripts/lib/check-stamp.ts): the stamp holds only while every input
 * and every compared file has the bytes it had.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { digestOf, stampHolds, writeStamp } from "../../scripts/lib/check-stamp.ts";

const root = mkdtempSync(path.join(tmpdir(), "check-stamp-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
};
const INPUTS = ["in", "config.yaml"];
const stampFile = path.join(root, "cache", "stamp.json");

beforeEach(() => {
  rmSync(root, { recursive: true, force: true });
  write("in/a.yaml", "a: 1\n");
  write("in/deep/b.yaml", "b: 2\n");
  write("config.yaml", "x: 1\n");
  write("out/generated.ts", "export const a = 1;\n");
});

describe("digestOf", () => {
  it("changes with a file's bytes, a new file, a renamed one and a missing input appearing", () => {
    const first = digestOf(root, INPUTS);
    expect(digestOf(root, [...INPUTS].reverse())).toBe(first);
    write("in/deep/b.yaml", "b: 3\n");
    const second = digestOf(root, INPUTS);
    expect(second).not.toBe(first);
    write("in/c.yaml", "");
    const third = digestOf(root, INPUTS);
    expect(third).not.toBe(second);
    rmSync(path.join(root, "in/c.yaml"));
    write("in/d.yaml", "");
    expect(digestOf(root, INPUTS)).not.toBe(third);
    const withMissing = digestOf(root, [...INPUTS, "later.yaml"]);
    write("later.yaml", "");
    expect(digestOf(root, [...INPUTS, "later.yaml"])).not.toBe(withMissing);
  });

  it("leaves node_modules out", () => {
    const before = digestOf(root, INPUTS);
    write("in/node_modules/pkg/index.js", "x");
    expect(digestOf(root, INPUTS)).toBe(before);
  });
});

describe("stampHolds and writeStamp", () => {
  const compared = (): [string, string][] => [[path.join(root, "out/generated.ts"), "export const a = 1;\n"]];

  it("holds after a passed check while nothing changed, and says when that check ran", () => {
    const inputs = digestOf(root, INPUTS);
    expect(stampHolds(stampFile, root, inputs)).toBeUndefined();
    writeStamp(stampFile, root, inputs, compared());
    expect(stampHolds(stampFile, root, digestOf(root, INPUTS))).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("no longer holds once an input or a compared file changes", () => {
    writeStamp(stampFile, root, digestOf(root, INPUTS), compared());
    write("in/a.yaml", "a: 2\n");
    expect(stampHolds(stampFile, root, digestOf(root, INPUTS))).toBeUndefined();
    write("in/a.yaml", "a: 1\n");
    expect(stampHolds(stampFile, root, digestOf(root, INPUTS))).toBeDefined();
    write("out/generated.ts", "export const a = 2;\n");
    expect(stampHolds(stampFile, root, digestOf(root, INPUTS))).toBeUndefined();
    rmSync(path.join(root, "out/generated.ts"));
    expect(stampHolds(stampFile, root, digestOf(root, INPUTS))).toBeUndefined();
  });

  it("is not read from a file that is not a stamp, or one that compared nothing", () => {
    const inputs = digestOf(root, INPUTS);
    write("cache/stamp.json", "not json");
    expect(stampHolds(stampFile, root, inputs)).toBeUndefined();
    writeStamp(stampFile, root, inputs, []);
    expect(stampHolds(stampFile, root, inputs)).toBeUndefined();
  });
});
