/** The `partner-api` executable (built to dist/cli.js with a `#!/usr/bin/env node` line). */

import { partnerApiCli } from "./index.ts";
import { main } from "./runner.ts";

await main(partnerApiCli);
