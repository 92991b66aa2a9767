/** `partner-api sandbox scenario [<name | file[#workflowId]>]`: runs a shipped workflow or an Arazzo file's workflows. */
import { stat } from "node:fs/promises";
import { readArazzoFile, shippedWorkflows, WorkflowError } from "../../arazzo/document.ts";
import { sandboxRouter } from "../../sandbox/index.ts";
import { defineCommand, describeValue, UsageError } from "../runner.ts";
import { CONNECTION, CONNECTION_USAGE, call, connect, JSON_USAGE, printJson } from "./connection.ts";

export function scenarioCommand(name: string) {
  return defineCommand({
    name,
    summary: "runs a shipped workflow by name, or an Arazzo file's workflows, in the sandbox; lists them without one",
    usage: `Usage: ${name} [<name | file[#workflowId]>] [--url <url>] [--api-key <key>] [--json]

A shipped workflow (the API description's workflows; ${name} lists them), or an Arazzo 1.0 file: every
workflow of it in order, or the one after #. Its steps run in the sandbox as --api-key (the apiKey input).

Options:
${CONNECTION_USAGE}
${JSON_USAGE}`,
    options: { ...CONNECTION, json: { type: "boolean" } },
    positionals: { max: 1 },
    async run({ values, positionals, io }) {
      const connection = connect(values);
      const [which] = positionals;
      if (which === undefined) {
        const { data } = await call(connection, "scenario", () => connection.control.GET("/_sandbox/scenarios"));
        for (const scenario of data.scenarios)
          io.out(`${scenario.name}  ${scenario.summary ?? ""} (${scenario.steps.length} steps)`);
        return `${data.scenarios.length} shipped scenario(s)`;
      }
      const shipped = shippedWorkflows(sandboxRouter());
      const hash = which.lastIndexOf("#");
      const file = hash > 0 ? which.slice(0, hash) : which;
      const isFile =
        !shipped.has(which) &&
        (await stat(file).then(
          (found) => found.isFile(),
          () => false,
        ));
      if (!shipped.has(which) && !isFile)
        throw new UsageError(
          `${describeValue(which)} is neither a shipped scenario (${[...shipped.keys()].join(", ")}) nor a file`,
        );
      const body = shipped.has(which)
        ? { name: which }
        : {
            arazzo: await readArazzoFile(file, sandboxRouter()).catch((error: Error) => {
              throw error instanceof WorkflowError ? new UsageError(error.message) : error;
            }),
            ...(hash > 0 ? { workflowId: which.slice(hash + 1) } : {}),
          };
      const { data } = await call(connection, `scenario ${which}`, () =>
        connection.control.POST("/_sandbox/scenarios", { body }),
      );
      if (values.json) printJson(io, data);
      else {
        for (const step of data.steps)
          io.out(`${step.status} ${step.operationId} ${step.method} ${step.path}  (${step.workflowId} ${step.stepId})`);
        for (const workflow of data.workflows)
          io.out(
            `${workflow.workflowId} outputs: ${
              Object.entries(workflow.outputs)
                .map(([output, value]) => `${output}=${typeof value === "string" ? value : JSON.stringify(value)}`)
                .join(" ") || "none"
            }`,
          );
      }
      return `scenario ${data.scenario}: ${data.steps.length} call(s)`;
    },
  });
}
