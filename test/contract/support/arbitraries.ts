/**
 * The schema-to-arbitrary generator of the contract tests: the devkit's (`partner-api verify` draws its
 * generated requests from the same module), so the tests and the tool generate alike.
 */
export {
  invalidValue,
  type Schema,
  UnsupportedSchemaError,
  validValue,
} from "../../../devkit/src/conformance/arbitraries.ts";
