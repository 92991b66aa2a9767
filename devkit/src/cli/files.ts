/** Sizes of build output, for the "built …: N files, K KiB" line of the build commands. */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";

/** How many files a folder holds (all levels) and their bytes together. */
export async function directorySize(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return { files, bytes };
}
