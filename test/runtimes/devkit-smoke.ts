import type { Workspace } from "./workspace.ts";
export const DEVKIT_NODES = ["node20", "node22", "node24", "node26"] as const;
export interface DevkitBuild {
  dir: string;
}
export async function makeDevkit(work: string, _workspace: Workspace): Promise<DevkitBuild> {
  return { dir: work };
}
export async function smokeDevkit(
  _build: DevkitBuild,
  _node: { path: string; version: string },
  _work: string,
): Promise<string> {
  throw new Error("todo");
}
