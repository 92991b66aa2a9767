import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { directorySize } from "partner-api-devkit/cli";
import { afterAll, describe, expect, it } from "vitest";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("directorySize", () => {
  it("counts the files of every level and adds up their bytes, folders not counted", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "files-test-"));
    dirs.push(dir);
    await mkdir(path.join(dir, "a", "b"), { recursive: true });
    await writeFile(path.join(dir, "top.txt"), "12345");
    await writeFile(path.join(dir, "a", "b", "deep.txt"), "x".repeat(1000));
    expect(await directorySize(dir)).toEqual({ files: 2, bytes: 1005 });
  });

  it("fails naming a folder that does not exist", async () => {
    await expect(directorySize(path.join(os.tmpdir(), "no-such-folder-files-test"))).rejects.toThrow(
      /no-such-folder-files-test/,
    );
  });
});
