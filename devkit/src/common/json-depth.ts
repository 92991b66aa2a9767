/**
 * How deep a JSON body may nest, and the check that reads it without parsing: the sandbox's request limit
 * (../sandbox/limits.ts lists the others), which the mock's front and the report's redaction apply too.
 */

/** How deep a JSON body may nest (objects and arrays): 422 deeper. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text nests deeper than `max` (objects and arrays), read without parsing it, so a body
 * nested thousands of levels deep costs one pass over its bytes and no stack. Brackets inside strings do
 * not count; malformed text is left to JSON.parse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index++;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) depth--;
  }
  return false;
}
