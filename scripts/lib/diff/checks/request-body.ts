/**
 * Message bodies: a request body appearing, going or becoming required, and the media types of any body
 * (request or response). A webhook's delivery body is judged as the partner reads it (`response-…`).
 */
import { defineFamily, flow } from "./define.ts";

/** A webhook's delivery body (`response-…`) has no oasdiff counterpart: oasdiff judges it as a request. */
const family = defineFamily("request body", import.meta.url, {
  "body-removed": flow("Body removed", ["error", "error"], { request: ["request-body-removed"] }),
  "body-added-required": flow("Required body added", ["error", "info"], { request: ["request-body-added-required"] }),
  "body-added-optional": flow("Optional body added", ["info", "info"], { request: ["request-body-added-optional"] }),
  "body-became-required": flow("Body became required", ["error", "info"], {
    request: ["request-body-became-required"],
  }),
  "body-became-optional": flow("Body became optional", ["info", "error"], {
    request: ["request-body-became-optional"],
  }),
  "media-type-removed": flow("Media type removed", ["error", "error"], {
    request: ["request-body-media-type-removed"],
    response: ["response-media-type-removed"],
  }),
  "media-type-added": flow("Media type added", ["info", "info"], {
    request: ["request-body-media-type-added"],
    response: ["response-media-type-added"],
  }),
  "media-type-widened": flow(
    "Media type replaced by a wider range (application/json → application/*)",
    ["info", "error"],
    {
      response: ["response-media-type-name-generalized"],
    },
  ),
  "media-type-narrowed": flow(
    "Media type replaced by a narrower one (application/* → application/json)",
    ["error", "info"],
    { response: ["response-media-type-name-specialized"] },
  ),
  "media-type-parameters-added": flow(
    "Media type parameter added (application/json → application/json; charset=utf-8)",
    ["error", "info"],
    { response: ["response-media-type-name-changed"] },
  ),
  "media-type-parameters-removed": flow(
    "Media type parameter removed",
    ["info", "error"],
    {
      response: ["response-media-type-name-changed"],
    },
    { why: { response: "A reader that relied on the parameter (a charset) cannot tell what it gets now." } },
  ),
  "media-type-parameters-changed": flow(
    "Media type parameter value changed (charset=utf-8 → charset=utf-16)",
    ["error", "error"],
    { response: ["response-media-type-name-changed"] },
    {
      why: {
        response:
          "Readers decode the body by the parameter (charset=utf-8 \u2192 utf-16): the bytes mean something else now.",
      },
    },
  ),
  "media-schema-added": flow("A media type's schema added (its body was free)", ["error", "info"], {
    request: ["request-body-media-type-schema-added"],
    response: ["response-body-media-type-schema-added"],
  }),
  "media-schema-removed": flow("A media type's schema removed (its body is free now)", ["info", "warning"], {
    request: ["request-body-media-type-schema-removed"],
    response: ["response-body-media-type-schema-removed"],
  }),
});
export default family;

const BODY_KINDS = [
  "body-removed",
  "body-added-required",
  "body-added-optional",
  "body-became-required",
  "body-became-optional",
] as const;
family.detector("body", ["body"], BODY_KINDS, ({ place, before, after }, out) => {
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
function parameterChange(
  before: Map<string, string>,
  after: Map<string, string>,
): "media-type-parameters-changed" | "media-type-parameters-removed" | "media-type-parameters-added" | undefined {
  const same = (name: string) => before.get(name)?.toLowerCase() === after.get(name)?.toLowerCase();
  const changed = [...before.keys()].some((name) => after.has(name) && !same(name));
  const removed = [...before.keys()].some((name) => !after.has(name));
  const added = [...after.keys()].some((name) => !before.has(name));
  if (changed || (removed && added)) return "media-type-parameters-changed";
  if (removed) return "media-type-parameters-removed";
  if (added) return "media-type-parameters-added";
  return undefined;
}

const MEDIA_KINDS = [
  "media-type-removed",
  "media-type-added",
  "media-type-widened",
  "media-type-narrowed",
  "media-type-parameters-added",
  "media-type-parameters-removed",
  "media-type-parameters-changed",
  "media-schema-added",
  "media-schema-removed",
] as const;
family.detector("mediaTypes", ["media"], MEDIA_KINDS, (pair, out) => {
  const where = `${pair.place} ${pair.type}`;
  if (!pair.after) return out.emit("media-type-removed", where, `media type \`${pair.type}\` removed`);
  if (pair.old === undefined || !pair.before)
    return out.emit("media-type-added", where, `media type \`${pair.type}\` added`);
  if (pair.before.schema === undefined && pair.after.schema !== undefined)
    out.emit("media-schema-added", where, `schema added to \`${pair.type}\``);
  if (pair.before.schema !== undefined && pair.after.schema === undefined)
    out.emit("media-schema-removed", where, `schema removed from \`${pair.type}\``);
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
