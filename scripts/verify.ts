/**
 * `npm run verify -- --base-url <url> --api-key <key> …`: the devkit's `partner-api verify`
 * (devkit/src/cli/verify.ts), run from source with the same options, report and exit codes.
 */
import { verifyCommand } from "../devkit/src/cli/verify.ts";
import { main } from "./lib/cli.ts";

await main(verifyCommand({ name: "npm run verify --" }));
