/**
 * `npm run docs`: builds the API reference from the bundled contract into dist/docs/ (index.html,
 * self-contained, plus openapi.yaml and openapi.json), with samples in eight languages per operation and
 * webhook, and beside it Try it, Errors, Changelog, each release's reference and the Sandbox control page.
 * `--out DIR` writes elsewhere.
 */
import path from "node:path";
import { defineCommand, isEntryPoint, main, step, UsageError } from "partner-api-devkit/cli";
import { buildDocs, docsDir } from "./lib/docs/build.ts";
import { rel } from "./lib/paths.ts";

export const docsCommand = defineCommand({
  name: "npm run docs --",
  summary: "build the self-contained API reference (with code samples) into dist/docs/",
  usage: `Usage: npm run docs [-- --out <dir>]

Options:
  --out <dir>   write the reference there instead of dist/docs/

Preview it with \`npm run docs:preview\`.
Exit codes: 0 built, 2 bad input, 3 a bug.`,
  options: { out: { type: "string" } },
  async run({ values, io }) {
    if (values.out === "") throw new UsageError("--out needs a folder, got an empty value");
    const outDir = values.out === undefined ? docsDir : path.resolve(values.out);
    const result = await step(io, `build the API reference into ${rel(outDir)}`, () =>
      buildDocs({ outDir, onProgress: (message) => io.err(`  ${message}`) }),
    );
    const size = `${(result.indexBytes / 1024 / 1024).toFixed(2)} MiB`;
    const others = [
      ...result.files.filter((f) => f !== "index.html"),
      ...result.pageFiles.filter((f) => f.endsWith(".html")),
    ].join(", ");
    io.out(`Preview: npm run docs:preview${values.out === undefined ? "" : ` -- --dir ${rel(outDir)}`}`);
    return (
      `wrote ${rel(result.indexPath)} (${size}, self-contained) with ${result.operations} operations, ` +
      `${result.samples} code samples and ${result.webhooks} webhooks, plus ${others}`
    );
  },
});

if (isEntryPoint(import.meta.url)) await main(docsCommand);
