/** Annotations: `discriminator`, `contentMediaType` and `contentEncoding`. */
import { defineFamily, flow, rulesBothWays, rulesFor } from "../define.ts";
import { keyword } from "./keyword.ts";

const DISCRIMINATOR = [
  "discriminator-added",
  "discriminator-removed",
  "discriminator-property-name-changed",
  "discriminator-mapping-added",
  "discriminator-mapping-deleted",
  "discriminator-mapping-changed",
] as const;

const family = defineFamily("schema keywords", import.meta.url, {
  "content-encoding-changed": flow(
    "contentMediaType or contentEncoding changed",
    ["error", "error"],
    rulesBothWays(["content-media-type-changed", "content-encoding-changed"]),
  ),
  "discriminator-changed": flow("Discriminator changed", ["info", "info"], {
    request: rulesFor("request", DISCRIMINATOR),
    response: rulesFor("response", DISCRIMINATOR),
  }),
});
export default family;

family.detector("annotations", ["schema"], ["discriminator-changed", "content-encoding-changed"], ({ a, b }, out) => {
  const discriminator = keyword(a, b, "discriminator");
  if (discriminator) out.emit("discriminator-changed", discriminator.where, discriminator.text);
  for (const key of ["contentMediaType", "contentEncoding"]) {
    const change = keyword(a, b, key);
    if (change) out.emit("content-encoding-changed", change.where, change.text);
  }
});
