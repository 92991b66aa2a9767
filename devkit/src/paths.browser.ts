/**
 * paths.ts in a browser (partner-api-devkit/msw's browser bundle, devkit/scripts/build.ts): there are no files
 * to find. A file is shown by its name; the shipped workflows are not there to read (runWorkflow and the
 * scenarios take a document instead).
 */
export const fromSource = false;
export const packageRoot = "";
export const contractDir = "";
export const contractJsonPath = "";
export const sandboxContractJsonPath = "";
/** Empty: reading a shipped workflow from it fails, and the error says the file could not be read. */
export const workflowsDir = "";

export function displayPath(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1);
}
