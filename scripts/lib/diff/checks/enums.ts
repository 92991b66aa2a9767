/** Enumerations: `enum` values and `x-extensible-enum` (an enum readers must expect to grow). */
import { code, stable } from "../pairs.ts";
import { locationOf } from "../resolve.ts";
import { defineFamily } from "./define.ts";

const family = defineFamily("enums", import.meta.url);
export default family;

family.detector("enumValues", ["schema"], ({ a, b }, out) => {
  const from = a.enum;
  const to = b.enum;
  if (!from && !to) return;
  const where = locationOf((to ?? from)!.at);
  if (!from) return out.emit("enum-added", where, `enum added: ${to!.values.map(code).join(", ")}`);
  if (!to) return out.emit("enum-removed", where, `enum removed (was ${from.values.map(code).join(", ")})`);
  const before = new Set(from.values.map(stable));
  const after = new Set(to.values.map(stable));
  const removed = from.values.filter((value) => !after.has(stable(value)));
  const added = to.values.filter((value) => !before.has(stable(value)));
  if (removed.length > 0) out.emit("enum-value-removed", where, `enum values removed: ${removed.map(code).join(", ")}`);
  if (added.length > 0) {
    const hint = out.flow === "toPartner" ? "; partners reading this value may not handle it" : "";
    out.emit("enum-value-added", where, `enum values added: ${added.map(code).join(", ")}${hint}`);
  }
});

family.detector("extensibleEnum", ["schema"], ({ a, b }, out) => {
  const x = a.keywords.get("x-extensible-enum");
  const y = b.keywords.get("x-extensible-enum");
  if ((!x && !y) || stable(x?.value) === stable(y?.value)) return;
  const where = locationOf((y ?? x)!.at);
  const before = Array.isArray(x?.value) ? x.value : [];
  const after = Array.isArray(y?.value) ? y.value : [];
  const removed = before.filter((value) => !after.some((other) => stable(other) === stable(value)));
  const added = after.filter((value) => !before.some((other) => stable(other) === stable(value)));
  if (removed.length > 0)
    out.emit(
      "extensible-enum-value-removed",
      where,
      `x-extensible-enum values removed: ${removed.map(code).join(", ")}`,
    );
  if (added.length > 0)
    out.emit("extensible-enum-value-added", where, `x-extensible-enum values added: ${added.map(code).join(", ")}`);
});

// response-enum-value-added is an error, as oasdiff rates it: readers that switch over an enum without a default
// break on the new value. x-extensible-enum is the way to say "may grow".
// scope | kind | detector | level (request, response) | title | oasdiff's check and level (request, response)
family.table(`
  flow | enum-value-removed            | enumValues     | error, info   | Enum value removed | request-property-enum-value-removed error, response-property-enum-value-removed info
  flow | enum-value-added              | enumValues     | info, error   | Enum value added (readers may not handle it) | request-property-enum-value-added info, response-property-enum-value-added error
  flow | enum-added                    | enumValues     | error, info   | Enum added (the field was free before) | request-property-became-enum error, -
  flow | enum-removed                  | enumValues     | info, warning | Enum removed (any value allowed now) | request-property-became-not-enum info, -
  flow | extensible-enum-value-removed | extensibleEnum | error, info   | x-extensible-enum value removed | request-property-x-extensible-enum-value-removed error, -
  flow | extensible-enum-value-added   | extensibleEnum | info, info    | x-extensible-enum value added (readers must handle unknown values) | -
`);
