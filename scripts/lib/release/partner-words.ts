/**
 * A change as a partner reads it: what changed, in the words of someone calling the API, never the schema's
 * (no keyword, no JSON, no pointer). Made from the change's kind, its direction (what the partner sends, or what
 * the partner reads: answers and webhook deliveries) and the field, parameter or response its location names; the
 * gate's own message (a linter's voice) is not shown. `test/scripts/partner-words.test.ts` reads the sentences
 * of every change of the oasdiff parity corpus as text.
 */
import type { Change } from "../diff/changes.ts";

/** What a change is about: a field, a parameter, a response, a link, or the operation as a whole. */
export function subjectOf(change: Pick<Change, "location"> & Partial<Pick<Change, "message" | "flow">>): string {
  const location = change.location;
  // A field path prints as `.a.b` (component or operation schema); bracketed parts (`<…>`, `[]`) are the schema's
  // structure, not names a partner knows.
  // The place's own name (a component, a webhook's event type, a path) may hold dots: only what follows is a path.
  const rest = location
    .replace(/^#\/components\/\S+/, "")
    .replace(/^webhook \S+/, "")
    .replace(/^[A-Z]+ \/\S*/, "");
  const fields = [...rest.matchAll(/\.([A-Za-z_$][\w$-]*)/g)].map((match) => match[1]!);
  const component = /^#\/components\/schemas\/([^/ ]+)/.exec(location)?.[1];
  if (fields.length > 0) return `the field \`${fields.join(".")}\``;
  // A field of a body written in place (no component): the gate's message names it.
  const named = /\bfield `([^`]+)`/.exec(change.message ?? "")?.[1];
  if (named) return `the field \`${named}\``;
  const parameter = / (query|header|path|cookie) ([^\s.]+)$/.exec(location);
  // A header of an answer is one the partner reads, not a parameter they send.
  if (parameter)
    return / response \S+ header /.test(location) || (parameter[1] === "header" && change.flow === "toPartner")
      ? `the answer header \`${parameter[2]}\``
      : `the ${parameter[1]} parameter \`${parameter[2]}\``;
  const link = / link (\S+)$/.exec(location);
  if (link) return `the way on to \`${link[1]}\``;
  const status = / response (\d\d\d|default|\dXX)\b/.exec(location);
  if (status) return `the ${status[1]} answer`;
  if (/ request body\b/.test(location)) return location.startsWith("webhook ") ? "the delivery" : "the request body";
  if (component) return `\`${component}\` objects`;
  if (/^#\/components\/securitySchemes\//.test(location)) return "authentication";
  if (/^#\/servers/.test(location)) return "the API's addresses";
  return "it";
}

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  integer: "a whole number",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  null: "null",
};

/** `type string → integer` in the gate's message, as words: "a whole number (was text)". */
function typeChange(message: string): string | undefined {
  const match = /type ([a-z, |/]+?) → ([a-z, |/]+)/.exec(message);
  if (!match) return undefined;
  const words = (text: string) =>
    text
      .split(/[ ,|/]+/)
      .filter(Boolean)
      .map((type) => TYPE_WORDS[type] ?? "another kind of value")
      .join(" or ");
  return `${words(match[2]!)} (was ${words(match[1]!)})`;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Kinds that let fewer values through (a writer may be refused; a reader meets fewer) and more. */
const NARROWS =
  /(-narrowed|^pattern-added|^format-added|^const-added|^enum-added|^enum-value-removed|^extensible-enum-value-removed|^allof-member-added|^conditional-added|^nullable-removed|^items-narrowed|^properties-narrowed|^body-became-required)$/;
const WIDENS =
  /(-widened|^pattern-removed|^format-removed|^const-removed|^enum-removed|^enum-value-added|^extensible-enum-value-added|^allof-member-removed|^conditional-removed|^nullable-added|^variant-added|^closed-object-opened|^prefix-items-changed)$/;

/** What a sentence is made from. */
type Sentenced = Pick<Change, "kind" | "flow" | "location" | "message" | "documentation">;

/** Operations and webhooks added, removed, deprecated or renamed: no subject to name. */
function operationSentence(change: Sentenced): string | undefined {
  switch (change.kind) {
    case "operation-added":
    case "path-added":
      return "New operation: you can call it now";
    case "operation-removed":
    case "path-removed":
    case "operation-removed-before-sunset":
    case "operation-removed-unstable":
      return "This operation is removed: calls to it fail";
    case "operation-removed-after-deprecation":
      return "This operation, deprecated earlier, is removed";
    case "operation-deprecated":
      return "This operation is deprecated: it still answers, but will be removed";
    case "operation-reactivated":
      return "This operation is no longer deprecated";
    case "operation-id-changed":
      return "Its name changes (the name the typed client's helpers use for it)";
    case "webhook-added":
      return "New webhook: the service may now send it to your endpoint";
    case "webhook-removed":
      return "This webhook is no longer sent";
    case "webhook-removed-after-deprecation":
      return "This webhook, deprecated earlier, is no longer sent";
  }
  return undefined;
}

/** Fields, parameters and request bodies: added, removed, required or not, deprecated, defaults. */
function memberSentence(change: Sentenced, Subject: string, reads: boolean): string | undefined {
  switch (change.kind) {
    case "required-field-removed":
    case "optional-field-removed":
      return reads ? `${Subject} is no longer sent` : `${Subject} is no longer accepted in requests`;
    case "field-removed-after-deprecation":
      return reads
        ? `${Subject}, deprecated earlier, is no longer sent`
        : `${Subject}, deprecated earlier, is no longer accepted`;
    case "field-added-optional":
    case "parameter-added-optional":
      return reads ? `${Subject} is new: answers may carry it` : `${Subject} is new: you may send it`;
    case "field-added-required":
    case "parameter-added-required":
      return reads ? `${Subject} is new and always present` : `${Subject} is new and must be sent`;
    case "field-became-required":
    case "parameter-became-required":
      return reads ? `${Subject} is now always present` : `${Subject} must now be sent`;
    case "field-became-optional":
    case "parameter-became-optional":
      return reads ? `${Subject} may now be absent` : `${Subject} need no longer be sent`;
    case "ignored-field-changed":
    case "mutability-changed":
      return `${Subject} changes where it is used (sent or read), without changing what you send or read`;
    case "required-field-no-longer-write-only":
      return `${Subject} is now in every answer`;
    case "parameter-removed":
    case "parameter-removed-before-sunset":
      return reads ? `${Subject} is no longer sent` : `${Subject} is no longer accepted`;
    case "parameter-removed-after-deprecation":
      return `${Subject}, deprecated earlier, is no longer accepted`;
    case "parameter-deprecated":
      return reads ? `${Subject} is deprecated: stop relying on it` : `${Subject} is deprecated: stop sending it`;
    case "parameter-reactivated":
      return `${Subject} is no longer deprecated`;
    case "parameter-default-changed":
    case "default-changed":
      return `${Subject} takes another value when you leave it out`;
    case "body-added-required":
      return "A request body is now required";
    case "body-added-optional":
      return "You may now send a request body";
    case "body-removed":
      return "The request body is no longer accepted";
    case "body-became-optional":
      return reads ? "The delivery may now come without a body" : "The request body need no longer be sent";
  }
  return undefined;
}

/** Statuses, links, types, formats, security, servers, versions, stability and removal dates. */
function detailSentence(change: Sentenced, Subject: string, reads: boolean): string | undefined {
  switch (change.kind) {
    case "stability-invalid":
      return "Its stability is stated in a way the API description does not define";
    case "status-added":
      return `It may answer a new status (${statusIn(change.message) ?? "see the reference"})`;
    case "status-removed":
    case "success-status-removed":
      return `It no longer answers ${statusIn(change.message) ?? "one of its statuses"}`;
    case "link-added":
      return `The answer now says how to go on to ${linkTarget(change.location)}`;
    case "link-removed":
      return `The answer no longer says how to go on to ${linkTarget(change.location)}`;
    case "link-retargeted":
      return `The answer's way on to ${linkTarget(change.location)} changes what it passes on`;
    case "type-changed":
    case "type-narrowed":
    case "type-widened": {
      const words = typeChange(change.message);
      return words ? `${Subject} is now ${words}` : `${Subject} now holds another kind of value`;
    }
    case "media-type-added":
    case "media-type-widened":
      return reads ? "Answers may come in a new format" : "Requests may be sent in a new format";
    case "media-type-removed":
    case "media-type-narrowed":
      return reads
        ? "Answers no longer come in one of their formats"
        : "Requests are no longer accepted in one of their formats";
    case "media-type-parameters-added":
    case "media-type-parameters-changed":
    case "media-type-parameters-removed":
    case "content-encoding-changed":
      return "The format's details (such as its character set) change";
    case "security-requirement-added":
    case "security-anonymous-access-removed":
    case "security-scope-added":
    case "security-scheme-wire-changed":
    case "security-scheme-changed":
    case "security-scheme-removed":
    case "security-requirement-removed":
      return "How calls authenticate changes";
    case "security-made-optional":
    case "security-scope-removed":
    case "security-scheme-added":
      return "Authentication is relaxed: calls that worked keep working";
    case "server-added":
      return "The API is reachable at a new address";
    case "server-removed":
      return "One of the API's addresses is gone";
    case "server-changed":
      return "One of the API's addresses changes";
    case "version-changed":
    case "openapi-version-changed":
      return "The API description's version changes";
    case "schema-component-removed":
      return `${Subject} are no longer described on their own (the fields stay where they are used)`;
    case "stability-decreased":
      return "This operation is marked less stable: it may change sooner";
    case "stability-increased":
      return "This operation is marked more stable";
    case "sunset-earlier":
      return "Its removal date comes earlier";
    case "sunset-later":
      return "Its removal date moves later";
    case "sunset-removed":
    case "sunset-invalid":
      return "Its removal date is no longer stated";
    case "discriminator-changed":
      return `${Subject}: the description of which field tells their kinds apart changes (the values sent do not)`;
  }
  return undefined;
}

/** The sentence saying what changed, for a partner (no trailing period). */
export function partnerSentence(change: Sentenced): string {
  const reads = change.flow === "toPartner";
  const subject = subjectOf(change);
  const it = subject === "it" ? "this operation" : subject;
  const Subject = capital(it);
  const kind = change.kind;
  const sentence =
    operationSentence(change) ?? memberSentence(change, Subject, reads) ?? detailSentence(change, Subject, reads);
  if (sentence !== undefined) return sentence;
  if (change.documentation) return `${capital(it)}: its description changes`;
  if (NARROWS.test(kind))
    return reads ? `${Subject} may hold fewer values than before` : `${Subject} accepts fewer values than before`;
  if (WIDENS.test(kind))
    return reads ? `${Subject} may hold values it never held before` : `${Subject} accepts more values than before`;
  return reads ? `The values ${it} may hold change` : `The values ${it} accepts change`;
}

function statusIn(message: string): string | undefined {
  return /\b([1-5]\d\d|default|[1-5]XX)\b/.exec(message)?.[1];
}

function linkTarget(location: string): string {
  const name = / link (\S+)$/.exec(location)?.[1];
  return name ? `\`${name}\`` : "another operation";
}
