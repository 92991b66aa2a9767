/**
 * Text from the network made inert before it reaches a terminal or a log line: an event type, an id, a path,
 * a message quoting an answer. Control characters (C0, DEL, C1: escape sequences, a clear-screen, a carriage
 * return that overwrites a line, a newline that forges one) and the bidirectional overrides that reorder what
 * a reader sees are written as visible escapes (`\x1b`, `\u202e`), so what is printed is what was sent.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visible(character: string): string {
  const code = character.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** The text with every control and bidirectional-override character escaped: one line, as it was sent. */
export function inert(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** Like `inert`, but newlines kept (for a block of text of several lines, such as a report's message). */
export function inertLines(text: string): string {
  return text.split("\n").map(inert).join("\n");
}

const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (from JSON.stringify, which escapes C0 controls only) with the C1 controls and bidirectional
 * overrides it leaves as they are written as `\u` escapes too: the same value, inert in a terminal or editor.
 */
export function inertJson(json: string): string {
  return json.replace(JSON_UNSAFE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
