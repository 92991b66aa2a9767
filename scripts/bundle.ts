/**
 * `npm run bundle`: bundles openapi/openapi.yaml into generated/openapi.yaml and generated/openapi.json.
 * `--check` writes nothing and exits 1 when the committed bundle is stale.
 */
import { bundleContract, ensureBundle, staleBundleFiles } from "./lib/bundle.ts";
import { fail, formatDuration } from "./lib/log.ts";

const started = performance.now();
const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== "--check");
if (unknown.length > 0)
  fail(`unknown argument ${unknown.map((a) => `"${a}"`).join(", ")}; usage: npm run bundle [-- --check]`, 2);

try {
  if (args.includes("--check")) {
    const output = await bundleContract();
    const stale = await staleBundleFiles(output);
    const took = formatDuration(performance.now() - started);
    if (stale.length > 0) fail(`stale: ${stale.join(", ")}; run \`npm run bundle\` and commit the result (${took})`);
    console.log(`bundle is up to date: ${countOf(output.document)} (${took})`);
  } else {
    const { written, output } = await ensureBundle();
    const took = formatDuration(performance.now() - started);
    const what =
      written.length > 0 ? `wrote ${written.join(" and ")}` : "generated/openapi.{yaml,json} already up to date";
    console.log(`${what}: ${countOf(output.document)} (${took})`);
  }
} catch (error) {
  fail((error as Error).message);
}

function countOf(document: Record<string, unknown>): string {
  const paths = Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>);
  const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
  const operations = paths.reduce((sum, item) => sum + methods.filter((m) => m in item).length, 0);
  const webhooks = Object.keys((document.webhooks ?? {}) as object).length;
  const schemas = Object.keys(((document.components as Record<string, object>)?.schemas ?? {}) as object).length;
  return `${operations} operations, ${webhooks} webhooks, ${schemas} schemas`;
}
