/**
 * The key packPackages keeps packs under (test/helpers/build-lock.ts): it changes when a file a pack is built from
 * changes, and not for build output or installed packages.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packInputsKey } from "../helpers/build-lock.ts";

const root = mkdtempSync(path.join(os.tmpdir(), "partner-api-pack-key-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("packInputsKey", () => {
  it("changes with a source, a manifest or a new file; not with dist/ or node_modules/", async () => {
    for (const dir of ["src", "devkit/src", "devkit/dist", "dist", "node_modules/x"])
      mkdirSync(path.join(root, dir), { recursive: true });
    writeFileSync(path.join(root, "package.json"), "{}");
    writeFileSync(path.join(root, "src/index.ts"), "export {};");
    const first = await packInputsKey(root);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(await packInputsKey(root)).toBe(first);
    writeFileSync(path.join(root, "dist/index.js"), "built");
    writeFileSync(path.join(root, "devkit/dist/cli.js"), "built");
    writeFileSync(path.join(root, "node_modules/x/index.js"), "installed");
    expect(await packInputsKey(root)).toBe(first);
    writeFileSync(path.join(root, "src/index.ts"), "export const a = 1;");
    const edited = await packInputsKey(root);
    expect(edited).not.toBe(first);
    utimesSync(path.join(root, "package.json"), new Date(0), new Date(0));
    const touched = await packInputsKey(root);
    expect(touched).not.toBe(edited);
    writeFileSync(path.join(root, "devkit/src/new.ts"), "");
    expect(await packInputsKey(root)).not.toBe(touched);
  });
});
