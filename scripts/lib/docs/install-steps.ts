/**
 * The partner's install steps live once, in the quick start of docs/partners.md ("### Install"): which package is a
 * dependency and which a dev dependency, the devkit's peer dependency on the client, and the commands from the
 * registry and from tarballs. Everything else that shows install steps (the README's partner section, the rendered
 * reference's Getting started) takes them from here; test/docs/install-steps.test.ts holds them to package.json.
 */
import { readFileSync } from "node:fs";
import { partnersGuidePath } from "../paths.ts";

export interface InstallSteps {
  /** The Markdown of the section, without its heading. */
  markdown: string;
  /** The section's shell blocks, in order (registry first, then tarballs), each its command lines. */
  commands: string[][];
}

const HEADING = "### Install";

/** The quick start's install section of the partners' guide (its text, or the file's by default). */
export function partnerInstallSteps(guide = readFileSync(partnersGuidePath, "utf8")): InstallSteps {
  const lines = guide.split("\n");
  const start = lines.indexOf(HEADING);
  if (start === -1) throw new Error(`docs/partners.md has no "${HEADING}" section`);
  const commands: string[][] = [];
  let index = start + 1;
  // Up to the next heading of this level or above; a `# comment` inside a block is not one.
  for (; index < lines.length && !/^#{1,3} /.test(lines[index]!); index++) {
    if (!lines[index]!.startsWith("```")) continue;
    const end = lines.indexOf("```", index + 1);
    if (end === -1) throw new Error(`docs/partners.md: a code block under "${HEADING}" is never closed`);
    if (lines[index] === "```sh") commands.push(lines.slice(index + 1, end));
    index = end;
  }
  return {
    markdown: lines
      .slice(start + 1, index)
      .join("\n")
      .trim(),
    commands,
  };
}

/** The commands as one shell block per source, as the README shows them. */
export function installBlocks(steps: InstallSteps): string {
  return steps.commands.map((block) => ["```sh", ...block, "```"].join("\n")).join("\n\n");
}
