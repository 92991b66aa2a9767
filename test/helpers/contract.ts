import { readFileSync } from "node:fs";
import { bundleJsonPath } from "../../scripts/lib/paths.ts";

/** A fresh deep copy of the committed bundle, for tests that mutate it. */
export function loadBundle(): any {
  return JSON.parse(readFileSync(bundleJsonPath, "utf8"));
}
