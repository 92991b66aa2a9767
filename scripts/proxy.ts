/**
 * `npm run proxy -- --upstream <url> …`: the devkit's `partner-api proxy` (devkit/src/cli/proxy.ts), run from
 * source with the same options, output and exit codes.
 */
import { proxyCommand } from "../devkit/src/cli/proxy.ts";
import { main } from "./lib/cli.ts";

await main(proxyCommand({ name: "npm run proxy --" }));
