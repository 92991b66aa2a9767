/** The `partner-api` executable (built to dist/cli.js with a `#!/usr/bin/env node` line). */

import { unsupportedNode } from "./node-version.ts";

// Checked before the commands are loaded, so an old Node gets this message and not a stack trace of some import.
const refused = unsupportedNode(process.versions.node);
if (refused) {
  process.stderr.write(`error: ${refused}\n`);
  process.exitCode = 2;
} else {
  const [{ partnerApiCli }, { main }] = await Promise.all([import("./index.ts"), import("./runner.ts")]);
  await main(partnerApiCli);
}
