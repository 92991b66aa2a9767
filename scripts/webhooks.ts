/**
 * `npm run webhooks -- <list|trigger|listen>`: the devkit's `partner-api webhooks` commands, run from source
 * (devkit/src/cli/webhooks.ts), with the same options and output.
 */
import { webhooksCommands } from "../devkit/src/cli/webhooks.ts";
import { main } from "./lib/cli.ts";

await main(webhooksCommands("npm run webhooks --"));
