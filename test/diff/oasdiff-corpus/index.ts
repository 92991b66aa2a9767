/**
 * The corpus: base/revision pairs of our own, each making the change one of oasdiff's checker tests makes, naming
 * that test, its file and the oasdiff commit, the rule ids it asserts and whether it asserts every change or one.
 * scripts/lib/diff/parity.ts runs them; test/diff/oasdiff-corpus.test.ts holds the gate to oasdiff's verdicts.
 */
import type { CorpusPair } from "../../../scripts/lib/diff/parity.ts";
import boundsAndPatterns from "./bounds-and-patterns.ts";
import breaking from "./breaking.ts";
import breakingProperties from "./breaking-properties.ts";
import compositions from "./compositions.ts";
import keywords from "./keywords.ts";
import messages from "./messages.ts";
import operations from "./operations.ts";
import properties from "./properties.ts";
import requestConstraints from "./request-constraints.ts";
import types from "./types.ts";
import values from "./values.ts";

export const PAIRS: readonly CorpusPair[] = [
  ...requestConstraints,
  ...boundsAndPatterns,
  ...values,
  ...types,
  ...properties,
  ...operations,
  ...messages,
  ...compositions,
  ...keywords,
  ...breaking,
  ...breakingProperties,
];
