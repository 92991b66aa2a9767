/**
 * The `partner-api` command of partner-api-devkit: `partner-api <sandbox|mock|webhooks|verify|proxy> …`. Each command is a
 * handler run by the one CLI runner (./runner.ts, also the package's `partner-api-devkit/cli` entry); this repository's
 * `npm run mock`, `npm run webhooks`, `npm run sandbox`, `npm run verify` and `npm run proxy` call the same handlers.
 */

import { devkitVersion } from "../paths.ts";
import { mockCommand } from "./mock.ts";
import { proxyCommand } from "./proxy.ts";
import type { CommandGroup } from "./runner.ts";
import { sandboxCommand } from "./sandbox.ts";
import { verifyCommand } from "./verify.ts";
import { webhooksCommands } from "./webhooks.ts";

export const CLI_NAME = "partner-api";

export const partnerApiCli: CommandGroup = {
  name: CLI_NAME,
  summary:
    "develop against the partner API offline (a stateful sandbox, a Prism mock, webhook tools) and check an implementation against the contract (verify, proxy)",
  version: devkitVersion,
  commands: {
    sandbox: sandboxCommand({ name: `${CLI_NAME} sandbox` }),
    mock: mockCommand({ name: `${CLI_NAME} mock` }),
    webhooks: webhooksCommands(`${CLI_NAME} webhooks`),
    verify: verifyCommand({ name: `${CLI_NAME} verify` }),
    proxy: proxyCommand({ name: `${CLI_NAME} proxy` }),
  },
};
