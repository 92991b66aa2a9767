/**
 * `npm run sandbox`: the devkit's `partner-api sandbox` (devkit/src/cli/sandbox.ts), run from source with the
 * same options and output.
 */
import { main, sandboxCommand } from "partner-api-devkit/cli";

await main(sandboxCommand({ name: "npm run sandbox --" }));
