/**
 * The registry's coverage: every registered check has a fixture pair that makes it fire and its compatible twin
 * (the nearest change of the other kind) that leaves it quiet; every check any fixture makes the gate report is
 * registered; a detector cannot report a check that is not its own. A check added without a fixture fails here.
 *
 * Fixtures are keyed by the check's kind (its id without the direction). A direction's `At` says where the kind
 * lives for `request-…` ids (the request of POST /things, the partner's answer to the webhook) and for
 * `response-…` ids (the response of POST /things, the webhook's delivery).
 */
import { describe, expect, it } from "vitest";
import { ChangeSink } from "../../scripts/lib/diff/changes.ts";
import { defineFamily, flow, type Out, rulesFor } from "../../scripts/lib/diff/checks/define.ts";
import { OASDIFF_RULES } from "../../scripts/lib/diff/oasdiff-rules.ts";
import { atLeast, type CheckId, findCheck, levelIn, ROWS } from "../../scripts/lib/diff/registry.ts";
import { diffContracts } from "../../scripts/lib/diff/report.ts";
import { compareDocuments } from "../../scripts/lib/diff/walk.ts";
import { type Any, baseDocument, rename, reported, request, response, things } from "./support/registry-base.ts";
import { FIXTURES } from "./support/registry-fixtures.ts";

describe("every registered check has a fixture pair that fires it and a compatible twin that does not", () => {
  it.each(ROWS.map((row) => [row.id, row] as const))("%s", (_id, row) => {
    const fixture = FIXTURES[row.kind];
    expect(
      fixture,
      `no fixture for ${row.id}: add one to FIXTURES in test/diff/support/registry-fixtures.ts`,
    ).toBeDefined();
    const at = row.direction === "response" ? response : request;
    const fired = reported(fixture!, at, fixture!.fire);
    expect(fired, `${row.id} must fire`).toContain(row.id);
    const quiet = reported(fixture!, at, fixture!.quiet);
    expect(quiet, `${row.id} must stay quiet on its compatible twin`).not.toContain(row.id);
    for (const id of [...fired, ...quiet]) expect(findCheck(id), `${id} is registered`).toBeDefined();
  });

  it("has no fixture for a check that is not registered", () => {
    const kinds = new Set(ROWS.map((row) => row.kind));
    expect(Object.keys(FIXTURES).filter((kind) => !kinds.has(kind))).toEqual([]);
  });

  it("the base document compares equal to itself", () => {
    const base = baseDocument();
    expect(compareDocuments(base, structuredClone(base))).toEqual([]);
  });
});

describe("a detector reports only its own checks", () => {
  const family = defineFamily("enums", import.meta.url, { "enum-value-renamed": flow("Renamed", ["error", "info"]) });
  const stray = family.detector("stray", ["schema"], ["enum-value-renamed"], () => {});
  const [row] = ROWS.filter((candidate) => candidate.id === "request-enum-value-removed");

  it("throws on a kind no row declares", () => {
    const out = new ChangeSink().out(stray, "toService");
    expect(() => out.emit("enum-value-renamed", "#/x", "renamed")).toThrow(/no registry row declares/);
  });

  it("throws on another detector's check", () => {
    const out: Out = new ChangeSink().out(stray, "toService");
    expect(() => out.emit("enum-value-removed", "#/x", "removed")).toThrow(
      new RegExp(`its row names ${row!.detector.name}`),
    );
  });

  it("throws on an oasdiff rule the check does not cover", () => {
    const out: Out = new ChangeSink().out(row!.detector, "toService");
    expect(() =>
      out.emit("enum-value-removed", "#/x", "removed", { oasdiff: "response-property-enum-value-removed" }),
    ).toThrow(/as oasdiff's response-property-enum-value-removed, which the row does not cover/);
  });

  it("rejects a family whose kind no detector reports, or two do", () => {
    const lonely = defineFamily("enums", import.meta.url, { "enum-value-renamed": flow("Renamed", ["error", "info"]) });
    expect(() => lonely.rows()).toThrow(/kind enum-value-renamed is reported by no detector/);
    const twice = defineFamily("enums", import.meta.url, { "enum-value-renamed": flow("Renamed", ["error", "info"]) });
    twice.detector("one", ["schema"], ["enum-value-renamed"], () => {});
    twice.detector("other", ["schema"], ["enum-value-renamed"], () => {});
    expect(() => twice.rows()).toThrow(/kind enum-value-renamed is reported by one and other/);
  });

  it("holds kinds, check ids and oasdiff ids as types: a typo is a tsc error", () => {
    const family = defineFamily("enums", import.meta.url, { "enum-value-renamed": flow("Renamed", ["error", "info"]) });
    // @ts-expect-error a kind the family does not declare
    family.detector("typo", ["schema"], ["enum-valu-renamed"], () => {});
    family.detector("emits", ["schema"], ["enum-value-renamed"], (_pair, out) => {
      // @ts-expect-error a kind the detector does not list
      out.emit("enum-value-renamd", "#/x", "renamed");
    });
    // @ts-expect-error an oasdiff id oasdiff's table does not have
    flow("Renamed", ["error", "info"], { request: ["request-property-enum-value-renamed"] });
    // @ts-expect-error a suffix no oasdiff rule has
    rulesFor("request", ["enum-value-renamed"]);
    const id: CheckId = "response-optional-field-removed";
    // @ts-expect-error a check id the registry does not have
    const typo: CheckId = "response-optional-feld-removed";
    expect([id, typo]).toHaveLength(2);
  });
});

describe("oasdiff's levels (scripts/lib/diff/oasdiff-rules.ts, read from its checker/rules.go)", () => {
  const mapped = ROWS.flatMap((row) => row.oasdiff.map((id) => [row.id, id] as const));

  it("gives each mapped rule oasdiff's level under --profile oasdiff, and a default never looser", () => {
    expect(mapped.length).toBeGreaterThan(300);
    const wrong = mapped.flatMap(([id, rule]) => {
      const row = findCheck(id)!;
      const level = OASDIFF_RULES[rule].level;
      const problems: string[] = [];
      if (levelIn(row, "oasdiff", rule) !== level)
        problems.push(`${id} under --profile oasdiff is not ${rule}'s ${level}`);
      if (!atLeast(row.level, level)) problems.push(`${id} is ${row.level} by default, looser than ${rule} (${level})`);
      return problems;
    });
    expect(wrong).toEqual([]);
  });

  it("maps a request check only to oasdiff's request rules, a response check only to its response rules", () => {
    const crossed = ROWS.flatMap((row) =>
      row.direction === "request" || row.direction === "response"
        ? row.oasdiff.filter((rule) => !["none", row.direction].includes(OASDIFF_RULES[rule].direction))
        : [],
    );
    expect(crossed).toEqual([]);
  });

  it("a change of a check whose rules differ in level must name its rule", () => {
    const mixed = ROWS.find((row) => row.id === "request-constraint-narrowed")!;
    expect(() => levelIn(mixed, "oasdiff")).toThrow(/covers oasdiff rules of different levels/);
    expect(levelIn(mixed, "oasdiff", "request-property-max-length-set")).toBe("warning");
    expect(levelIn(mixed, "oasdiff", null)).toBe("error"); // oasdiff has no rule for the case: this gate's level
  });

  it("an optional response field removed is at least a warning in both profiles", () => {
    const row = findCheck("response-optional-field-removed")!;
    for (const profile of ["default", "oasdiff"] as const) expect(atLeast(levelIn(row, profile), "warning")).toBe(true);
  });
});

describe("the default profile's stricter picks", () => {
  it("each check stricter than oasdiff on a rule it covers says why (the docs' table shows it)", () => {
    const stricter = ROWS.filter((row) => row.oasdiff.some((rule) => OASDIFF_RULES[rule].level !== row.level));
    expect(stricter.length).toBeGreaterThan(0);
    expect(stricter.filter((row) => !row.why).map((row) => row.id)).toEqual([]);
  });

  it("no check says why it is stricter when it is not", () => {
    const idle = ROWS.filter((row) => row.why && row.oasdiff.every((rule) => OASDIFF_RULES[rule].level === row.level));
    expect(idle.map((row) => row.id)).toEqual([]);
  });
});

/**
 * What oasdiff's own tests found this gate doing differently (issue 28), each fix with its case and its nearest
 * twin: the change, the check it reports, the oasdiff rule that change is, and its level in both profiles.
 */
/** The checks and levels a change is reported with, in each profile. */
const levelsOf = (setup: (d: Any) => void, mutate: (d: Any) => void) => {
  const base = baseDocument();
  setup(base);
  const head = structuredClone(base);
  mutate(head);
  const run = (profile: "default" | "oasdiff") =>
    diffContracts(
      { document: base, label: "base" },
      { document: head, label: "head" },
      { profile, today: "2026-06-01" },
    )
      .changes.filter((change) => change.check !== "request-documentation-changed")
      .map((change) => `${change.check} ${change.level}`);
  return { byDefault: run("default"), oasdiff: run("oasdiff") };
};
const none = () => {};
const inBody = (d: Any) => d.components.schemas.In.properties.p;
const outBody = (d: Any) => d.components.schemas.Out.properties.p;
const query = (d: Any) => things(d).parameters[0];

/** A fix oasdiff's tests called for: the change, its nearest twin judged otherwise, the levels in each profile. */
interface Fix {
  fix: string;
  setup: (d: Any) => void;
  fire: (d: Any) => void;
  twin: (d: Any) => void;
  reported: string[];
  oasdiff: string[];
}
const FIXES: Fix[] = [
  {
    fix: "an empty pattern is no pattern: '' → a pattern is a pattern added",
    setup: (d: Any) => (inBody(d).pattern = ""),
    fire: (d: Any) => (inBody(d).pattern = "^a+$"),
    twin: (d: Any) => (inBody(d).pattern = ".*"),
    reported: ["request-pattern-added error"],
    oasdiff: ["request-pattern-added error"],
  },
  {
    fix: "an optional request parameter's default changed is an error (oasdiff's), a required one's documentation",
    setup: (d: Any) => (query(d).schema.default = "a"),
    fire: (d: Any) => (query(d).schema.default = "b"),
    twin: (d: Any) => (inBody(d).default = "b"),
    reported: ["request-parameter-default-changed error"],
    oasdiff: ["request-parameter-default-changed error"],
  },
  {
    fix: "an enum value added to a response: an error here, oasdiff's warning under its profile",
    setup: (d: Any) => (outBody(d).enum = ["a", "b"]),
    fire: (d: Any) => outBody(d).enum.push("c"),
    twin: (d: Any) => (outBody(d)["x-extensible-enum"] = ["c"]),
    reported: ["response-enum-value-added error"],
    oasdiff: ["response-enum-value-added warning"],
  },
  {
    fix: "a maxLength set for the first time in a request is oasdiff's …-max-length-set (a warning), lowered its …-decreased",
    setup: none,
    fire: (d: Any) => {
      delete inBody(d).maxLength;
      d.components.schemas.In.properties.o.maxLength = 5;
    },
    twin: (d: Any) => (inBody(d).maxLength = 5),
    reported: ["request-constraint-narrowed error"],
    oasdiff: ["request-constraint-narrowed warning"],
  },
  {
    fix: "an exclusiveMinimum set for the first time is oasdiff's …-exclusive-min-set (a warning)",
    setup: none,
    fire: (d: Any) => (d.components.schemas.In.properties.n = { type: "integer", exclusiveMinimum: 0 }),
    twin: (d: Any) => (d.components.schemas.In.properties.n.minimum = 1),
    reported: ["request-constraint-narrowed error"],
    oasdiff: ["request-constraint-narrowed warning"],
  },
  {
    fix: "an object parameter's property changing to a type its text form reads is oasdiff's warning",
    setup: (d: Any) =>
      Object.assign(query(d), {
        style: "deepObject",
        schema: { type: "object", properties: { id: { type: "number" } } },
      }),
    fire: (d: Any) => (query(d).schema.properties.id.type = "string"),
    twin: (d: Any) => (query(d).schema.properties.id.type = "boolean"),
    reported: ["request-type-changed error"],
    oasdiff: ["request-type-changed warning"],
  },
  {
    fix: "a pattern removed from a response property: an error here, oasdiff's information",
    setup: (d: Any) => (outBody(d).pattern = "^a+$"),
    fire: (d: Any) => delete outBody(d).pattern,
    twin: (d: Any) => (outBody(d).pattern = "^[ab]+$"),
    reported: ["response-pattern-removed error"],
    oasdiff: ["response-pattern-removed info"],
  },
  {
    fix: "XML carries text: an object may become a string in a request (compatible), not so in JSON",
    setup: (d: Any) => rename(things(d).requestBody.content, "application/json", "application/xml"),
    fire: (d: Any) => (things(d).requestBody.content["application/xml"].schema = { type: "string" }),
    twin: (d: Any) => {
      rename(things(d).requestBody.content, "application/xml", "application/json");
      things(d).requestBody.content["application/json"].schema = { type: "string" };
    },
    reported: ["request-type-widened info"],
    oasdiff: ["request-type-widened info"],
  },
  {
    fix: "an optional response field removed is an error by default (partners read it), oasdiff's warning in its profile",
    setup: none,
    fire: (d: Any) => delete d.components.schemas.Out.properties.o,
    twin: (d: Any) => (d.components.schemas.Out.properties.o.deprecated = true),
    reported: ["response-optional-field-removed error"],
    oasdiff: ["response-optional-field-removed warning"],
  },
];

describe("the fixes oasdiff's tests called for", () => {
  it.each(FIXES)("$fix", ({ setup, fire, twin, reported, oasdiff }) => {
    const fired = levelsOf(setup, fire);
    expect(fired.byDefault).toEqual(expect.arrayContaining(reported));
    expect(fired.oasdiff).toEqual(expect.arrayContaining(oasdiff));
    // The twin is the nearest change judged otherwise (in this gate's profile or oasdiff's).
    const quiet = levelsOf(setup, twin);
    expect([quiet.byDefault, quiet.oasdiff]).not.toEqual([
      expect.arrayContaining(reported),
      expect.arrayContaining(oasdiff),
    ]);
  });
});
