/**
 * `partner-api sandbox <command>`: drives a running sandbox through its control API, in the spirit of
 * `stripe trigger`, one file a command. Every command takes --url (the sandbox, default http://127.0.0.1:4020;
 * env SANDBOX_URL) and --api-key (the account, default "sandbox"; env SANDBOX_API_KEY).
 *   clock [status] | clock advance <1h|30m|2d|ISO time> | clock freeze | clock resume
 *   kyc <companyId> <status>      terms <companyId>      reset
 *   route open <companyId> <onramp|offramp>      deposit <routeId> <amount>
 *   trigger <event type>      events      logs [--follow]      faults add|list|remove|clear
 *   scenario [<name|file>]
 * `trigger` and `scenario` run the shipped workflows (openapi/workflows/): the one for an event type is the first
 * whose `x-webhooks` lists it.
 */
import { clockCommands } from "./clock.ts";
import { depositCommand } from "./deposit.ts";
import { eventsCommand } from "./events.ts";
import { faultCommands } from "./faults.ts";
import { kycCommand } from "./kyc.ts";
import { logsCommand } from "./logs.ts";
import { resetCommand } from "./reset.ts";
import { routeCommands } from "./route.ts";
import { scenarioCommand } from "./scenario.ts";
import { termsCommand } from "./terms.ts";
import { triggerCommand } from "./trigger.ts";

export { parseDuration } from "../../common/duration.ts";
export { DEFAULT_CONTROL_API_KEY, DEFAULT_SANDBOX_URL } from "./connection.ts";
export { describeRequest } from "./logs.ts";
export { triggerWorkflow } from "./trigger.ts";

/** The control commands of `partner-api sandbox`, by name; `name` is how the group is invoked. */
export function sandboxControlCommands(name: string) {
  return {
    clock: clockCommands(`${name} clock`),
    kyc: kycCommand(`${name} kyc`),
    terms: termsCommand(`${name} terms`),
    route: routeCommands(`${name} route`),
    deposit: depositCommand(`${name} deposit`),
    trigger: triggerCommand(`${name} trigger`),
    events: eventsCommand(`${name} events`),
    logs: logsCommand(`${name} logs`),
    faults: faultCommands(`${name} faults`),
    scenario: scenarioCommand(`${name} scenario`),
    reset: resetCommand(`${name} reset`),
  };
}
