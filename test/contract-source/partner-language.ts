/** What the partner-language checks look for, shared by the contract test and the rendered-docs test. */

/** Phrases that talk about the document the contract was written from instead of to the reader. */
export const SOURCE_TALK = /\bthe source\b|\bsource document\b|\bnot shown\b|\bis observed\b/i;
const RENDERED_KEYS = new Set(["description", "summary", "title"]);

/** Every description, summary and title in a document, with its JSON pointer. */
export function renderedTexts(node: unknown, pointer = "#"): Array<[pointer: string, text: string]> {
  if (Array.isArray(node)) return node.flatMap((item, index) => renderedTexts(item, `${pointer}/${index}`));
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([key, value]) => {
    const here = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    const own: Array<[string, string]> = RENDERED_KEYS.has(key) && typeof value === "string" ? [[here, value]] : [];
    return [...own, ...renderedTexts(value, here)];
  });
}
