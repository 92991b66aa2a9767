import path from "node:path";
import { repoRoot } from "../../scripts/lib/paths.ts";

/**
 * The compiler options of a partner's project that checks the installed packages strictly: `strict`, NodeNext, and
 * `skipLibCheck: false`, so every declaration a package ships is compiled. Node's own types come from this
 * repository's copy (the project installs only the packages under test).
 */
export function strictConsumerOptions(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    strict: true,
    noEmit: true,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023", "DOM"],
    types: ["node"],
    typeRoots: [path.join(repoRoot, "node_modules", "@types")],
    skipLibCheck: false,
    ...extra,
  };
}
