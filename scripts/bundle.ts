/**
 * `npm run bundle`: bundles openapi/openapi.yaml into generated/openapi.yaml and generated/openapi.json.
 * `--check` writes nothing and exits 1 when the committed bundle is stale.
 */

import { HTTP_METHODS } from "partner-api-client";
import { defineCommand, isEntryPoint, JobFailure, main } from "partner-api-devkit/cli";
import { bundleContract, ensureBundle, staleBundleFiles } from "./lib/bundle.ts";

function countOf(document: Record<string, unknown>): string {
  const paths = Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>);
  const operations = paths.reduce((sum, item) => sum + HTTP_METHODS.filter((m) => m in item).length, 0);
  const webhooks = Object.keys((document.webhooks ?? {}) as object).length;
  const schemas = Object.keys(((document.components as Record<string, object>)?.schemas ?? {}) as object).length;
  return `${operations} operations, ${webhooks} webhooks, ${schemas} schemas`;
}

export const bundleCommand = defineCommand({
  name: "npm run bundle --",
  summary: "bundle openapi/openapi.yaml into generated/openapi.{yaml,json}",
  usage: `Usage: npm run bundle [-- --check]

Options:
  --check   write nothing; fail when the committed bundle differs from a fresh one

Exit codes: 0 written or up to date, 1 stale (--check) or the contract does not bundle, 2 bad input, 3 a bug.`,
  options: { check: { type: "boolean" } },
  async run({ values }) {
    if (values.check) {
      const output = await bundleContract();
      const stale = await staleBundleFiles(output);
      if (stale.length > 0)
        throw new JobFailure(`stale: ${stale.join(", ")}; run \`npm run bundle\` and commit the result`);
      return `bundle is up to date: ${countOf(output.document)}`;
    }
    const { written, output } = await ensureBundle();
    const what =
      written.length > 0 ? `wrote ${written.join(" and ")}` : "generated/openapi.{yaml,json} already up to date";
    return `${what}: ${countOf(output.document)}`;
  },
});

if (isEntryPoint(import.meta.url)) await main(bundleCommand);
