/** What `npm run test:runtimes` runs, by name: a runtime running the client scenario, or the devkit under one Node. */

/**
 * The Nodes the devkit's smoke test runs under (devkit-smoke.ts): those of its `engines` (22.13 and later); Node 20
 * runs the client scenario only.
 */
export const DEVKIT_NODES = ["node22", "node24", "node26"] as const;
/** The Nodes of the matrix below the devkit's `engines`: its command must refuse to start there, saying why. */
export const DEVKIT_REFUSED_NODES = ["node20"] as const;

export const TARGETS = [
  "node20",
  "node22",
  "node24",
  "node26",
  "bun",
  "deno",
  "workerd",
  "chromium",
  ...DEVKIT_NODES.map((node) => `devkit-${node}` as const),
  ...DEVKIT_REFUSED_NODES.map((node) => `devkit-refused-${node}` as const),
] as const;
export type Target = (typeof TARGETS)[number];

/**
 * The compatibility dates the Worker runs under: the binary's own (what a Worker made today gets) and the last date
 * before workerd gave every Worker Node's `Buffer` and `process` as globals (they are there from 2026-09-01 on, not
 * on 2026-08-01: probed with workerd 2026-11-17), which Workers made before then still run with. Under that one, a
 * Node-only global in the client's web path fails.
 */
export const WORKERD_WITHOUT_NODE_GLOBALS = "2026-08-01";
