/**
 * Redoc's search drops a Markdown soft line break instead of reading it as a space, so a description wrapped as
 * "read a\ncard holder" showed in the search results as "acard holder". The rendered copy of the contract gets its
 * paragraphs on one line each (a soft break and a space render alike); the contract keeps its wrapping.
 */

/** A line that starts a block of its own, so it never continues the paragraph above it. */
const BLOCK_START = [
  /^\s*$/, // blank
  /^\s*([-*+]|\d{1,9}[.)])(\s|$)/, // list item
  /^\s*#{1,6}(\s|$)/, // heading
  /^\s*>/, // quote
  /^\s*(`{3,}|~{3,})/, // fence
  /^\s*\|/, // table row
  /^\s*</, // HTML
  /^\s*([-*_])(\s*\1){2,}\s*$/, // thematic break, or a setext underline
  /^\s*=+\s*$/, // setext underline
];

/** A line after which the next line is not joined: a heading, a table row, HTML, or a hard break at its end. */
const NOT_JOINED_ONTO = [/^\s*#{1,6}(\s|$)/, /^\s*\|/, /^\s*</, / {2,}$/, /\\$/];

/**
 * `markdown` with each paragraph's soft line breaks written as spaces. Code (fenced, or indented four spaces after a
 * blank line), headings, tables, HTML and hard breaks are left as they are.
 */
export function joinSoftBreaks(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  // Whether the last line written is paragraph text a following line may continue.
  let inParagraph = false;
  for (const line of markdown.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && /^\s*[`~]+\s*$/.test(line))
        fence = undefined;
      out.push(line);
      continue;
    }
    if (marker) {
      fence = marker;
      inParagraph = false;
      out.push(line);
      continue;
    }
    const startsBlock = BLOCK_START.some((pattern) => pattern.test(line));
    if (inParagraph && !startsBlock) {
      out[out.length - 1] = `${out[out.length - 1]!.trimEnd()} ${line.trim()}`;
      continue;
    }
    const blankBefore = out.length === 0 || /^\s*$/.test(out[out.length - 1]!);
    const indentedCode = blankBefore && /^( {4,}|\t)/.test(line) && !startsBlock;
    inParagraph = !/^\s*$/.test(line) && !indentedCode && !NOT_JOINED_ONTO.some((pattern) => pattern.test(line));
    out.push(line);
  }
  return out.join("\n");
}

/** Keys whose values are data, not prose: examples, defaults, the samples' code. */
const DATA_KEYS = new Set(["example", "examples", "default", "enum", "const", "x-codeSamples"]);

/** A copy of an OpenAPI document with every `description` given one line per paragraph (examples left as they are). */
export function withJoinedDescriptions<T>(node: T): T {
  if (Array.isArray(node)) return node.map((item) => withJoinedDescriptions(item)) as T;
  if (typeof node !== "object" || node === null) return node;
  // fromEntries defines each key, so a `__proto__` key of the document stays a key.
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      DATA_KEYS.has(key)
        ? value
        : key === "description" && typeof value === "string"
          ? joinSoftBreaks(value)
          : withJoinedDescriptions(value),
    ]),
  ) as T;
}
