/**
 * `npm run webhooks -- <list|trigger|listen>`: the devkit's `partner-api webhooks` commands, run from source
 * (devkit/src/cli/webhooks.ts), with the same options and output.
 */
import { main, webhooksCommands } from "partner-api-devkit/cli";

await main(webhooksCommands("npm run webhooks --"));
