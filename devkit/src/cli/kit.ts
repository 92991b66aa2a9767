/**
 * `partner-api-devkit/cli`: the `partner-api` commands as handlers, and the one runner they run on. The
 * repository's own CLIs (scripts/, bench/) import the runner from here, and `npm run mock`, `npm run sandbox` and
 * `npm run webhooks` run these same handlers from source; imports go one way, from the repository to this package.
 * The public surface, listed name by name.
 */

export {
  type ArazzoDocument,
  checkWorkflowDocuments,
  type RunWorkflowOptions,
  runWorkflow,
  type StepCall,
  WorkflowError,
  type WorkflowFile,
  type WorkflowFileIssue,
  type WorkflowRunResult,
} from "../arazzo/index.ts";
export { formatDuration } from "../common/duration.ts";
export {
  followRefs,
  followRefsFrom,
  isObject,
  type Json,
  type JsonObject,
  lookup,
  pointerSegment,
} from "../contract/refs.ts";
export { directorySize } from "./files.ts";
export { CLI_NAME, partnerApiCli } from "./index.ts";
export { untilStopped } from "./lifecycle.ts";
export { DEFAULT_MOCK_HOST, DEFAULT_MOCK_PORT, type MockCommandOptions, mockCommand } from "./mock.ts";
export { proxyCommand } from "./proxy.ts";
export {
  type CliIO,
  type Command,
  type CommandContext,
  type CommandGroup,
  defineCommand,
  describeValue,
  EXIT,
  type ExitCode,
  isEntryPoint,
  JobFailure,
  main,
  optionOrEnv,
  parseHost,
  parseInteger,
  parsePositiveNumber,
  runCommand,
  step,
  UsageError,
  untilAborted,
} from "./runner.ts";
export { type SandboxCommandOptions, sandboxCommand } from "./sandbox.ts";
export { verifyCommand } from "./verify.ts";
export { webhooksCommands } from "./webhooks.ts";
