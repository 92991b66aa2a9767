/**
 * `npm run verify -- --base-url <url> --api-key <key> …`: the devkit's `partner-api verify`
 * (devkit/src/cli/verify.ts), run from source with the same options, report and exit codes.
 */
import { main, verifyCommand } from "partner-api-devkit/cli";

await main(verifyCommand({ name: "npm run verify --" }));
