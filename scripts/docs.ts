/**
 * `npm run docs`: builds the API reference from the bundled contract into dist/docs/ (index.html,
 * self-contained, plus openapi.yaml and openapi.json), with a TypeScript and a curl sample per
 * operation. `--out DIR` writes elsewhere.
 */
import path from "node:path";
import { buildDocs, docsDir } from "./lib/docs/build.ts";
import { fail, formatDuration, step } from "./lib/log.ts";
import { rel } from "./lib/paths.ts";

const usage = "usage: npm run docs [-- --out DIR]";
const started = performance.now();
const args = process.argv.slice(2);
let outDir = docsDir;
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === "--out") {
    const value = args[++i];
    if (!value) fail(`--out needs a folder; ${usage}`, 2);
    outDir = path.resolve(value);
  } else if (arg.startsWith("--out=")) {
    const value = arg.slice("--out=".length);
    if (!value) fail(`--out needs a folder; ${usage}`, 2);
    outDir = path.resolve(value);
  } else {
    fail(`unknown argument "${arg}"; ${usage}`, 2);
  }
}

try {
  const result = await step(`build the API reference into ${rel(outDir)}`, () =>
    buildDocs({ outDir, onProgress: (message) => process.stderr.write(`  ${message}\n`) }),
  );
  const size = `${(result.indexBytes / 1024 / 1024).toFixed(2)} MiB`;
  console.log(
    `wrote ${rel(result.indexPath)} (${size}, self-contained) with ${result.operations} operations, ` +
      `${result.samples} code samples and ${result.webhooks} webhooks, plus ${result.files.filter((f) => f !== "index.html").join(" and ")} ` +
      `(${formatDuration(performance.now() - started)}). Preview: npm run docs:preview`,
  );
} catch (error) {
  fail((error as Error).message);
}
