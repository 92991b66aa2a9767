/** The `partner-api` executable (built to dist/cli.js with a `#!/usr/bin/env node` line). */
import { main } from "../../../scripts/lib/cli.ts";
import { partnerApiCli } from "./index.ts";

await main(partnerApiCli);
