/**
 * data-file.ts in a browser (partner-api-devkit/msw's browser bundle): no files, and JSON only, so the bundle
 * carries no YAML parser. A scenario or fault posted as JSON works as in Node.
 */
export class DataFileError extends Error {
  override readonly name = "DataFileError";
}

export function parseDataText(text: string, shownAs: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DataFileError(
      `${shownAs} is not JSON (in a browser the sandbox reads JSON only; YAML in Node): ${(error as Error).message}`,
    );
  }
}

export async function readDataFile(_file: string, shownAs: string): Promise<unknown> {
  throw new DataFileError(`cannot read ${shownAs}: a browser has no files (pass the document itself)`);
}
