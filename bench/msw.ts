/**
 * The sandbox in MSW (partner-api-devkit/msw): what its browser build adds to a test page (esbuild, as
 * devkit/scripts/build.ts builds dist/msw.browser.js, minified, gzip at level 9; MSW and the client are the
 * page's own and left out), and what one call costs answered in-process (`answer(request)`, the seam MSW's
 * handler calls) beside the same call to `startSandbox` over loopback HTTP, side by side in one run.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { bundleForBrowser } from "../devkit/scripts/build.ts";
import { createSandboxHandlers } from "../devkit/src/msw/index.ts";
import { startSandbox } from "../devkit/src/sandbox/index.ts";
import type { Benchmark } from "./context.ts";
import type { Figure, Ratio } from "./results.ts";

const CALLS = { tiny: 30, quick: 500, full: 3000 } as const;
const KEY = "bench-msw";

/** Median milliseconds of one call, over `calls` calls after a tenth as many to warm up. */
async function perCall(calls: number, call: () => Promise<Response>): Promise<number> {
  for (let i = 0; i < Math.max(5, calls / 10); i++) await (await call()).arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await (await call()).arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export const mswBenchmark: Benchmark = {
  name: "msw",
  title: "Sandbox in MSW: browser build and in-process calls",
  async run({ size, progress }) {
    progress("msw: esbuild of the browser build");
    const folder = await mkdtemp(path.join(os.tmpdir(), "partner-bench-msw-"));
    let gzipped: number;
    let minified: number;
    let nodeImports: string[];
    try {
      const out = path.join(folder, "msw.browser.js");
      const metafile = await bundleForBrowser("src/msw/index.ts", out, true);
      const code = await readFile(out);
      minified = code.byteLength;
      gzipped = gzipSync(code, { level: 9 }).byteLength;
      nodeImports = Object.values(metafile.outputs).flatMap((output) =>
        output.imports.filter((each) => each.path.startsWith("node:")).map((each) => each.path),
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    const calls = CALLS[size];
    progress(`msw: ${calls} calls in-process and over HTTP`);
    const handlers = createSandboxHandlers({ seed: 1 });
    const sandbox = await startSandbox({ port: 0, seed: 1 });
    let inProcess: number;
    let overHttp: number;
    try {
      const headers = { "x-api-key": KEY };
      inProcess = await perCall(calls, () =>
        handlers.answer(new Request(`${handlers.baseUrl}/v1/card-bins`, { headers })),
      );
      overHttp = await perCall(calls, () => fetch(`${sandbox.url}/v1/card-bins`, { headers }));
    } finally {
      await handlers.stop();
      await sandbox.stop();
    }
    const figures: Figure[] = [
      { label: "browser build (MSW and the client left out), minified", value: minified, unit: "bytes" },
      { label: "browser build (MSW and the client left out), minified + gzip", value: gzipped, unit: "bytes" },
      {
        label: `\`node:\` modules the browser build imports (${nodeImports.join(", ") || "none"})`,
        value: nodeImports.length,
        unit: "modules",
      },
      { label: "listCardBins in-process (`answer(request)`), median", value: inProcess, unit: "ms" },
      { label: "listCardBins over loopback HTTP (`startSandbox`, fetch), median", value: overHttp, unit: "ms" },
    ];
    const ratios: Ratio[] = [{ label: "HTTP call ÷ in-process call (median)", value: overHttp / inProcess }];
    return {
      name: this.name,
      title: this.title,
      method: `esbuild (ESM, minified, platform browser, target es2022) of devkit/src/msw/index.ts as devkit/scripts/build.ts bundles it, msw and partner-api-client external; gzip at level 9. ${calls} sequential GET /v1/card-bins calls with one key, each way, after a warm-up, in one process: in-process through \`createSandboxHandlers().answer\` (what MSW's handler calls, MSW's own interception not included), and with the global fetch to \`startSandbox\` on 127.0.0.1.`,
      figures,
      ratios,
      notes: [],
    };
  },
};
