/**
 * Secrets out of everything the devkit shows or writes: the sandbox's request log (and so its stream and its
 * dashboard), the proxy's report and verify's reports. One list of secret-shaped names, applied to header
 * names, query parameters and the fields of a body, and one reading of a body by its media type, parsed
 * case-insensitively: a JSON or form body is parsed and its secret-named fields replaced, whatever its size;
 * a body that cannot be parsed is shown as its length and type, never its bytes.
 */
import { utf8Length } from "./bytes.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./common/json-depth.ts";

export const REDACTED = "[REDACTED]";

/**
 * Parts of a name (lower case, `-`, `_`, `.` and spaces dropped) that make its value a secret: `secret`,
 * `webhook_secret`, `X-API-Key`, `api_key`, `apiKey`, `password`, `accessToken`, `Authorization`, `Cookie`…
 */
const SECRET_PARTS = [
  "secret",
  "password",
  "passwd",
  "passphrase",
  "token",
  "apikey",
  "authorization",
  "cookie",
  "credential",
  "privatekey",
  "accesskey",
  "sessionid",
] as const;

/** Whether a header, query parameter or body field of this name holds a secret. */
export function isSecretName(name: string): boolean {
  const plain = name.toLowerCase().replace(/[-_.\s]/g, "");
  return SECRET_PARTS.some((part) => plain.includes(part));
}

/** A header's value as one string: a list joined, a number as text, "" when absent. */
export function headerText(value: string | readonly string[] | number | undefined | null): string {
  return Array.isArray(value) ? value.join(", ") : value === undefined || value === null ? "" : String(value);
}

/** The media type of a Content-Type value, lower case and without parameters: "" when there is none. */
export function mediaTypeOf(contentType: string | readonly string[] | number | undefined | null): string {
  const first = Array.isArray(contentType) ? contentType[0] : contentType;
  if (first === undefined || first === null) return "";
  return String(first).split(";", 1)[0]!.trim().toLowerCase();
}

/** `application/json` and every `…/…+json` (problem+json, merge-patch+json). */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === "application/json" || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(mediaType);
}

export const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";

/** A user name and password written in a URL (`https://user:secret@host/`), wherever in a text it is. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;

/**
 * The text with the credentials of every URL in it replaced by REDACTED (`http://[REDACTED]@host/`): a receiver
 * URL with a password is shown in the control API's lists, the request log and the dashboard.
 */
export function redactUrlCredentials(text: string): string {
  return text.includes("@") ? text.replace(URL_CREDENTIALS, `$1${REDACTED}@`) : text;
}

/**
 * A copy of a parsed JSON value with the value of every secret-named field replaced by REDACTED (an object or
 * array under such a name too). Walked with a list, not recursion: any depth, any size, no stack to exhaust.
 * Copies are null-prototype objects, so a field named `__proto__` stays a field.
 */
export function redactValue(value: unknown): unknown {
  if (typeof value === "string") return redactUrlCredentials(value);
  if (value === null || typeof value !== "object") return value;
  const pending: [source: object, copy: Record<string, unknown> | unknown[]][] = [];
  const copyOf = (item: unknown): unknown => {
    if (typeof item === "string") return redactUrlCredentials(item);
    if (item === null || typeof item !== "object") return item;
    const copy: Record<string, unknown> | unknown[] = Array.isArray(item)
      ? new Array(item.length)
      : Object.create(null);
    pending.push([item, copy]);
    return copy;
  };
  const root = copyOf(value);
  while (pending.length > 0) {
    const [source, copy] = pending.pop()!;
    if (Array.isArray(source)) {
      const list = copy as unknown[];
      for (let index = 0; index < source.length; index++) list[index] = copyOf(source[index]);
      continue;
    }
    const record = copy as Record<string, unknown>;
    for (const key of Object.keys(source)) {
      const item = (source as Record<string, unknown>)[key];
      record[key] = item !== null && item !== undefined && isSecretName(key) ? REDACTED : copyOf(item);
    }
  }
  return root;
}

/** Headers with secret-named values replaced; names in lower case, in a null-prototype record. */
export function redactHeaders(
  headers: Readonly<Record<string, string | readonly string[] | number | undefined>>,
): Record<string, string> {
  const shown: Record<string, string> = Object.create(null);
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    const key = name.toLowerCase();
    shown[key] = isSecretName(key) ? REDACTED : headerText(value);
  }
  return shown;
}

/** A query string (without `?`) with the values of secret-named parameters replaced; unchanged when none is. */
export function redactQuery(query: string): string {
  if (query === "") return query;
  const params = new URLSearchParams(query);
  let changed = false;
  for (const name of new Set(params.keys()))
    if (isSecretName(name)) {
      params.set(name, REDACTED);
      changed = true;
    } else if (params.getAll(name).some((value) => redactUrlCredentials(value) !== value)) {
      const values = params.getAll(name);
      params.delete(name);
      for (const value of values) params.append(name, redactUrlCredentials(value));
      changed = true;
    }
  return changed ? params.toString() : query;
}

/** A body that is not shown: its size and type only. */
export interface OmittedBody {
  bytes: number;
  mediaType: string;
  reason: string;
}

export type ReadBody = { parsed: unknown } | { omitted: OmittedBody };

/**
 * A body read by its media type: JSON (any `+json` too) and forms parsed, with secrets redacted; anything else,
 * JSON that does not parse, or JSON nested too deep to write out again, as its length and type.
 */
export function readRedacted(text: string, contentType: string | readonly string[] | number | undefined): ReadBody {
  const mediaType = mediaTypeOf(contentType);
  const omitted = (reason: string): ReadBody => ({
    omitted: { bytes: utf8Length(text), mediaType: mediaType || "(none)", reason },
  });
  if (isJsonMediaType(mediaType)) {
    // Deeper than any body the sandbox takes: it could be parsed, but not written out again (JSON.stringify recurses).
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return omitted(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    try {
      return { parsed: redactValue(JSON.parse(text)) };
    } catch {
      return omitted("not valid JSON");
    }
  }
  if (mediaType === FORM_MEDIA_TYPE) {
    const form: Record<string, string> = Object.create(null);
    for (const [name, value] of new URLSearchParams(text)) form[name] = isSecretName(name) ? REDACTED : value;
    return { parsed: form };
  }
  return omitted(mediaType ? `${mediaType} is neither JSON nor a form` : "no Content-Type");
}

/**
 * A body as text for a report (a curl line, a log): JSON and forms with their secrets redacted, anything else
 * as a note of its length and type.
 */
export function redactedBodyText(text: string, contentType: string | readonly string[] | number | undefined): string {
  const read = readRedacted(text, contentType);
  if ("omitted" in read)
    return `[${read.omitted.bytes} bytes of ${read.omitted.mediaType}, not shown: ${read.omitted.reason}]`;
  if (mediaTypeOf(contentType) === FORM_MEDIA_TYPE)
    return new URLSearchParams(read.parsed as Record<string, string>).toString();
  return JSON.stringify(read.parsed);
}
