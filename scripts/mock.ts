/**
 * `npm run mock`: the devkit's `partner-api mock` (devkit/src/cli/mock.ts), run from source with the same
 * options and output, serving generated/openapi.yaml after bundling the contract when it is stale.
 */
import { main, mockCommand, step } from "partner-api-devkit/cli";
import { ensureBundle } from "./lib/bundle.ts";
import { bundleYamlPath } from "./lib/paths.ts";

await main(
  mockCommand({
    name: "npm run mock --",
    document: bundleYamlPath,
    async prepare(io) {
      const { written, output } = await step(io, "bundle the contract if stale", () => ensureBundle());
      io.err(
        written.length > 0 ? `  wrote ${written.join(" and ")}` : "  generated/openapi.{yaml,json} already up to date",
      );
      return output.document;
    },
  }),
);
