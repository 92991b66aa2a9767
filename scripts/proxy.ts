/**
 * `npm run proxy -- --upstream <url> …`: the devkit's `partner-api proxy` (devkit/src/cli/proxy.ts), run from
 * source with the same options, output and exit codes.
 */
import { main, proxyCommand } from "partner-api-devkit/cli";

await main(proxyCommand({ name: "npm run proxy --" }));
