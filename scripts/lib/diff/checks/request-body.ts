/**
 * Message bodies: a request body appearing, going or becoming required, and the media types of any body
 * (request or response). A webhook's delivery body is judged as the partner reads it (`response-…`).
 */
import { defineFamily } from "./define.ts";

const family = defineFamily("request body", import.meta.url);
export default family;

family.detector("body", ["body"], ({ place, before, after }, out) => {
  if (before && !after) return out.emit("body-removed", place, "body removed");
  if (!before && after) {
    const required = after.required === true;
    return out.emit(
      required ? "body-added-required" : "body-added-optional",
      place,
      `${required ? "required" : "optional"} body added`,
    );
  }
  if (!before || !after) return;
  if (before.required !== true && after.required === true)
    out.emit("body-became-required", place, "body became required");
  if (before.required === true && after.required !== true)
    out.emit("body-became-optional", place, "body became optional");
});

/** The media type without its parameters: `application/json; charset=utf-8` is `application/json`. */
export const mediaBase = (type: string) => type.split(";")[0]!.trim().toLowerCase();

/** A media type's parameters (`charset=utf-8`), names lower-cased and values unquoted. */
function mediaParameters(type: string): Map<string, string> {
  const parameters = new Map<string, string>();
  for (const part of type.split(";").slice(1)) {
    const [name, ...value] = part.split("=");
    if (!name?.trim()) continue;
    parameters.set(
      name.trim().toLowerCase(),
      value
        .join("=")
        .trim()
        .replace(/^"(.*)"$/, "$1"),
    );
  }
  return parameters;
}

/** The same media type with the same parameters, however spelled (`application/json;charset=UTF-8`). */
export function sameMedia(a: string, b: string): boolean {
  if (mediaBase(a) !== mediaBase(b)) return false;
  const [x, y] = [mediaParameters(a), mediaParameters(b)];
  return x.size === y.size && [...x].every(([name, value]) => y.get(name)?.toLowerCase() === value.toLowerCase());
}

/**
 * Whether media range `general` (`*\/*`, `application/*`) includes `specific`. With `suffixes` (what a
 * response promises) a structured syntax suffix counts too: `application/problem+json` is a kind of
 * `application/json`. A request in `application/merge-patch+json` is another format, not a narrower JSON.
 */
export function covers(general: string, specific: string, suffixes: boolean): boolean {
  const [g, s] = [mediaBase(general), mediaBase(specific)];
  if (g === s) return false;
  if (g === "*/*") return true;
  const [type, subtype] = g.split("/");
  if (subtype === "*") return s.startsWith(`${type}/`);
  return suffixes && s.startsWith(`${type}/`) && s.endsWith(`+${subtype}`);
}

/**
 * Parameters added to a media type narrow it (`application/json` → `application/json; charset=utf-8`: only
 * UTF-8 now), removed ones widen it, a changed value is neither.
 */
function parameterChange(before: Map<string, string>, after: Map<string, string>): string | undefined {
  const same = (name: string) => before.get(name)?.toLowerCase() === after.get(name)?.toLowerCase();
  const changed = [...before.keys()].some((name) => after.has(name) && !same(name));
  const removed = [...before.keys()].some((name) => !after.has(name));
  const added = [...after.keys()].some((name) => !before.has(name));
  if (changed || (removed && added)) return "media-type-parameters-changed";
  if (removed) return "media-type-parameters-removed";
  if (added) return "media-type-parameters-added";
  return undefined;
}

family.detector("mediaTypes", ["media"], (pair, out) => {
  const where = `${pair.place} ${pair.type}`;
  if (!pair.after) return out.emit("media-type-removed", where, `media type \`${pair.type}\` removed`);
  if (pair.old === undefined) return out.emit("media-type-added", where, `media type \`${pair.type}\` added`);
  if (pair.renamed)
    out.emit(
      covers(pair.type, pair.old, pair.suffixes) ? "media-type-widened" : "media-type-narrowed",
      where,
      `media type \`${pair.old}\` → \`${pair.type}\``,
    );
  const parameters = parameterChange(mediaParameters(pair.old), mediaParameters(pair.type));
  if (parameters)
    out.emit(
      parameters,
      where,
      `media type parameters \`${pair.old}\` → \`${pair.type}\` (${parameters.replace("media-type-parameters-", "")})`,
    );
});

// scope | kind | detector | level (request, response) | title | oasdiff's check and level (request, response)
family.table(`
  flow | body-removed                  | body       | error, error | Body removed | request-body-removed error, -
  flow | body-added-required           | body       | error, info  | Required body added | added-required-request-body error, -
  flow | body-added-optional           | body       | info, info   | Optional body added | added-optional-request-body info, -
  flow | body-became-required          | body       | error, info  | Body became required | request-body-became-required error, -
  flow | body-became-optional          | body       | info, error  | Body became optional | request-body-became-optional info, -
  flow | media-type-removed            | mediaTypes | error, error | Media type removed | request-body-media-type-removed error, response-media-type-removed error
  flow | media-type-added              | mediaTypes | info, info   | Media type added | request-body-media-type-added info, response-media-type-added info
  flow | media-type-widened            | mediaTypes | info, error  | Media type replaced by a wider range (application/json → application/*) | -, response-media-type-name-generalized error
  flow | media-type-narrowed           | mediaTypes | error, info  | Media type replaced by a narrower one (application/* → application/json) | -, response-media-type-name-specialized info
  flow | media-type-parameters-added   | mediaTypes | error, info  | Media type parameter added (application/json → application/json; charset=utf-8) | -, response-media-type-parameter-added info
  flow | media-type-parameters-removed | mediaTypes | info, error  | Media type parameter removed | -, response-media-type-parameter-removed error
  flow | media-type-parameters-changed | mediaTypes | error, error | Media type parameter value changed (charset=utf-8 → charset=utf-16) | -, response-media-type-parameter-changed error
`);
