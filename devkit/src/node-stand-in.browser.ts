/**
 * The Node modules arazzo/document.ts reads the shipped workflows and scenario files with, in a browser
 * (partner-api-devkit/msw's browser bundle, devkit/scripts/build.ts): there are no files, so each call throws, and
 * the caller's error names the file it could not read. A Node module or name not listed here fails the build.
 */
const noFiles = (): never => {
  throw new Error("a browser has no files (pass the document itself)");
};

export const readdirSync = noFiles;
export const readFileSync = noFiles;
export const stat = async (): Promise<never> => noFiles();
export default { join: (...parts: string[]) => parts.join("/") };
