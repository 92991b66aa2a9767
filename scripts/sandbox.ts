/**
 * `npm run sandbox`: the devkit's `partner-api sandbox` (devkit/src/cli/sandbox.ts), run from source with the
 * same options and output.
 */
import { sandboxCommand } from "../devkit/src/cli/sandbox.ts";
import { main } from "./lib/cli.ts";

await main(sandboxCommand({ name: "npm run sandbox --" }));
