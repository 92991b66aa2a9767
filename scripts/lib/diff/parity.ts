/**
 * How close this gate is to oasdiff, measured on oasdiff's own checker tests: each is reproduced as a base/revision
 * pair of our own documents (test/diff/oasdiff-corpus/) naming the test, its file, the oasdiff commit, the rule ids
 * it asserts (their levels from oasdiff's table) and whether it asserts every change oasdiff reports or only one.
 * A pair agrees when this gate's verdict under `--profile oasdiff` is oasdiff's: an error, something reported below
 * error (a warning or information), or nothing. Where the two differ on purpose, the pair names the judgment
 * (JUDGMENTS, each with its reason), and the docs list it.
 */
import type { Change } from "./changes.ts";
import { LEVELS, type Level, type Row } from "./checks/define.ts";
import { OASDIFF_RULES, OASDIFF_SOURCE, type OasdiffId } from "./oasdiff-rules.ts";
import { atLeast, type Profile } from "./registry.ts";
import { diffContracts } from "./report.ts";
import type { Document } from "./resolve.ts";

/** Where this gate and oasdiff judge a change differently on purpose, and why. */
export const JUDGMENTS = {
  "webhook-direction":
    "A webhook delivery is a request the service sends and partners read, so its body is judged like a response " +
    "(an added required field is compatible, a removed one breaks readers); oasdiff judges a webhook's body as a " +
    "request to the service.",
  "path-parameter-default":
    "A path parameter is always sent (OpenAPI requires `required: true` of it), so its default is never applied and " +
    "a change to it is documentation; oasdiff reads `required` as written, and a path parameter without it as " +
    "optional, whose changed default is an error.",
  "sunset-fixed":
    "An x-sunset that was no date and becomes one fixes the contract: nothing breaks. oasdiff reports the base's " +
    "unparsable date as an error.",
  "not-inverted":
    "A change inside `not` counts the other way round: what `not` excludes grows when its schema widens, so a " +
    "request's `not` that widens makes the request accept less (an error); oasdiff compares `not` like any other " +
    "subschema.",
  "date-time":
    "`date` → `date-time` is a format change (an error both ways): `2026-01-01` is no valid date-time; oasdiff " +
    "treats it as a widening in a request.",
  "closed-object":
    "`additionalProperties: false` added to a request is an error (a writer sending an undeclared property is " +
    "rejected now); oasdiff has no rule for `additionalProperties`.",
  "effective-bounds":
    "A range is judged as the bound it makes: `minimum: 10` with `exclusiveMinimum: 5` is a minimum of 10, so " +
    "lowering the exclusive one alone changes nothing; oasdiff compares each keyword on its own.",
  "bounds-without-rules":
    "A `minLength` or `maxItems` set where there was none, or a response's `maximum` removed, changes which " +
    "values are valid, judged by direction as any bound; oasdiff's rules compare most bounds only when both " +
    "sides have them, and report nothing there.",
  links:
    "A response link removed or pointing elsewhere is a warning (partners following it lose their way on), one " +
    "added information; oasdiff has no rule for links (its checker/rules.go names none).",
  "read-only-in-request":
    "A read-only property is not the writer's to send (the service ignores it), so a constraint added to it in a " +
    "request breaks nobody; oasdiff rates that so for enums, lengths and ranges (its request-read-only-property-… " +
    "rules) but not for patterns.",
} as const;
export type Judgment = keyof typeof JUDGMENTS;

export interface CorpusPair {
  /** The oasdiff test function this pair reproduces, its file (`checker/…_test.go`) and the oasdiff commit. */
  test: string;
  file: string;
  commit: string;
  /** The rule ids the test asserts; their levels are oasdiff's table's. Empty: the test asserts no change. */
  ids: readonly OasdiffId[];
  /**
   * `every`: the test runs all of oasdiff's checks and asserts the whole list; `one`: it runs one check, or looks
   * for one id among others (this pair makes only that change).
   */
  asserts: "every" | "one";
  /** The lowest level the test asks oasdiff for (`CheckBackwardCompatibility`: warning; `…UntilLevel(…, INFO)`). */
  until: Level;
  base: Document;
  revision: Document;
  /** Why this gate's verdict differs from oasdiff's on this pair on purpose. */
  judgment?: Judgment;
}

/** The verdict the issue measures: fails the gate, is reported without failing it, or nothing. */
export type Verdict = "error" | "reported" | "nothing";
/** The level a comparison reaches: its most severe change at or above a threshold, or none. */
export type Outcome = Level | "none";

const verdictOf = (outcome: Outcome): Verdict =>
  outcome === "error" ? "error" : outcome === "none" ? "nothing" : "reported";

export interface PairResult {
  pair: CorpusPair;
  /** oasdiff's: the most severe level among the ids the test asserts. */
  oasdiff: Outcome;
  /** This gate's under the profile, from its changes at or above the test's threshold. */
  ours: Outcome;
  /** The most severe level this gate reports under the profile, whatever the test's threshold. */
  reported: Outcome;
  agrees: boolean;
  /** The level matches too (not only the verdict). */
  sameLevel: boolean;
  changes: Change[];
}

const DAY = "2026-08-08";

/** The most severe level among `levels` at or above `until`, or none. */
function strictest(levels: Iterable<Level>, until: Level): Outcome {
  const list = [...levels].filter((level) => atLeast(level, until));
  return LEVELS.find((level) => list.includes(level)) ?? "none";
}

/** Runs one pair under a profile. */
export function runPair(pair: CorpusPair, profile: Profile = "oasdiff"): PairResult {
  const base = { document: pair.base, label: "base" };
  const revision = { document: pair.revision, label: "revision" };
  const { changes } = diffContracts(base, revision, { profile, today: DAY });
  const ours = strictest(
    changes.map((change) => change.level),
    pair.until,
  );
  const oasdiff = strictest(
    pair.ids.map((id) => OASDIFF_RULES[id].level),
    pair.until,
  );
  const reported = strictest(
    changes.map((change) => change.level),
    "info",
  );
  return {
    pair,
    oasdiff,
    ours,
    reported,
    agrees: verdictOf(ours) === verdictOf(oasdiff),
    sameLevel: ours === oasdiff,
    changes,
  };
}

export interface ParityReport {
  commit: string;
  total: number;
  /** Pairs whose verdict agrees under `--profile oasdiff`. */
  agreeing: number;
  /** Pairs whose level (error, warning, info, nothing) agrees exactly under `--profile oasdiff`. */
  sameLevel: number;
  /** Pairs whose verdict agrees under the default profile (its stricter picks differ). */
  agreeingByDefault: number;
  /** Every pair whose verdict differs under `--profile oasdiff`. */
  differences: PairResult[];
  /** Pairs where the default profile is looser than oasdiff (nothing or reported where oasdiff says error, …). */
  looserByDefault: PairResult[];
  /** Tests reproduced, by oasdiff test file. */
  files: Map<string, number>;
  results: PairResult[];
}

const SEVERITY: Record<Outcome, number> = { error: 3, warning: 2, info: 1, none: 0 };

/** Runs every pair under both profiles. */
export function measureParity(pairs: readonly CorpusPair[]): ParityReport {
  const results = pairs.map((pair) => runPair(pair, "oasdiff"));
  const byDefault = pairs.map((pair) => runPair(pair, "default"));
  const files = new Map<string, number>();
  for (const pair of pairs) files.set(pair.file, (files.get(pair.file) ?? 0) + 1);
  return {
    commit: OASDIFF_SOURCE.commit,
    total: pairs.length,
    agreeing: results.filter((result) => result.agrees).length,
    sameLevel: results.filter((result) => result.sameLevel).length,
    agreeingByDefault: byDefault.filter((result) => result.agrees).length,
    differences: results.filter((result) => !result.agrees),
    looserByDefault: byDefault.filter((result) => SEVERITY[result.ours] < SEVERITY[result.oasdiff]),
    files,
    results,
  };
}

/** One line per difference: the test, what oasdiff says, what this gate says, and the judgment. */
export function describeDifference(result: PairResult): string {
  const { pair } = result;
  const why = pair.judgment ? `judgment: ${pair.judgment}` : "NOT A LISTED JUDGMENT";
  const changes = result.changes.map((change) => `${change.check} ${change.level}`).join(", ");
  return `${pair.test} (${pair.file}, at ${pair.until} or above): oasdiff ${result.oasdiff} (${pair.ids.join(", ") || "no change"}), this gate ${result.ours} (${changes || "no change"}); ${why}`;
}

/** The markers of a generated section of docs/design/oasdiff-parity.md. */
export const SECTIONS = {
  profiles: "oasdiff-profiles",
  differences: "oasdiff-differences",
} as const;
export type Section = keyof typeof SECTIONS;

const begin = (section: Section) =>
  `<!-- ${SECTIONS[section]}: generated by \`npm run oasdiff:parity -- --write\`; do not edit by hand -->`;
const end = (section: Section) => `<!-- /${SECTIONS[section]} -->`;

const list = (items: readonly string[], most = 2) =>
  items.length <= most + 1
    ? items.map((item) => `\`${item}\``).join(", ")
    : `${items
        .slice(0, most)
        .map((item) => `\`${item}\``)
        .join(", ")} and ${items.length - most} more`;

/** The default profile's stricter picks: each check stricter than oasdiff on some rule it covers, and why. */
export function renderProfiles(rows: readonly Row[]): string {
  const lines = ["| Check | This gate | oasdiff (its rule: level) | Why |", "| --- | --- | --- | --- |"];
  for (const row of rows) {
    const looser = row.oasdiff.filter((id) => OASDIFF_RULES[id].level !== row.level);
    if (looser.length === 0) continue;
    const byLevel = LEVELS.map((level) => ({ level, ids: looser.filter((id) => OASDIFF_RULES[id].level === level) }))
      .filter((group) => group.ids.length > 0)
      .map((group) => `${list(group.ids)}: ${group.level}`);
    lines.push(`| \`${row.id}\` | ${row.level} | ${byLevel.join("; ")} | ${row.why ?? "(no reason given)"} |`);
  }
  return lines.join("\n");
}

/** The measured differences: the figures, then each judgment with its reason and the pairs that show it. */
export function renderDifferences(report: ParityReport): string {
  const date = OASDIFF_SOURCE.date ? `, ${OASDIFF_SOURCE.date}` : "";
  const lines = [
    `Measured on ${report.total} base/revision pairs of our own, each reproducing one of oasdiff's checker tests ` +
      `(${report.files.size} of its test files, commit \`${report.commit.slice(0, 8)}\`${date}; ` +
      "`test/diff/oasdiff-corpus/`): under `--profile oasdiff` the verdict (an error, something reported below " +
      `error, or nothing) agrees with oasdiff's on **${report.agreeing} of ${report.total}** pairs ` +
      `(${report.sameLevel} to the level); the default profile on ${report.agreeingByDefault} (its stricter ` +
      "picks above account for the rest). The differences are judgments, each with its reason:",
    "",
  ];
  const judged = new Map<Judgment, PairResult[]>();
  for (const result of report.differences) {
    const key = result.pair.judgment;
    if (key) judged.set(key, [...(judged.get(key) ?? []), result]);
  }
  for (const [key, reason] of Object.entries(JUDGMENTS) as [Judgment, string][]) {
    const results = judged.get(key) ?? [];
    const pairs = results.map(
      (result) =>
        `\`${result.pair.test}\` (oasdiff: ${result.oasdiff}; here: ${result.reported === "none" ? "nothing" : result.reported})`,
    );
    const shown = pairs.length > 0 ? ` Pairs: ${pairs.join(", ")}.` : " (No pair of the corpus makes this change.)";
    lines.push(`- **${key}**: ${reason}${shown}`);
  }
  const unexplained = report.differences.filter((result) => !result.pair.judgment);
  if (unexplained.length > 0)
    lines.push(
      "",
      `Not yet explained (${unexplained.length}):`,
      ...unexplained.map((r) => `- ${describeDifference(r)}`),
    );
  return lines.join("\n");
}

/** `text` with the generated section replaced by `body`; throws when its markers are missing. */
export function replaceSection(text: string, section: Section, body: string, shown: string): string {
  const [open, close] = [begin(section), end(section)];
  const from = text.indexOf(open);
  const to = text.indexOf(close);
  if (from < 0 || to < from) throw new Error(`${shown} has no generated section ${SECTIONS[section]} (its markers)`);
  return `${text.slice(0, from + open.length)}\n${body}\n${text.slice(to)}`;
}

/** The generated section of `text` as it stands. */
export function readSection(text: string, section: Section): string | undefined {
  const [open, close] = [begin(section), end(section)];
  const from = text.indexOf(open);
  const to = text.indexOf(close);
  return from < 0 || to < from ? undefined : text.slice(from + open.length, to).trim();
}

/** Both generated sections rendered into `text`. */
export function renderDocs(text: string, report: ParityReport, rows: readonly Row[], shown: string): string {
  const profiles = replaceSection(text, "profiles", renderProfiles(rows), shown);
  return replaceSection(profiles, "differences", renderDifferences(report), shown);
}

export { begin as sectionStart, end as sectionEnd };
