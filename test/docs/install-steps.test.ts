/**
 * The partner's install steps are written once, in the quick start of docs/partners.md, and the README's partner
 * section shows the same commands. Both say what package.json says: the two packages' names, the devkit's peer
 * dependency on the client, and the workspace `npm pack -w` packs.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { installBlocks, partnerInstallSteps } from "../../scripts/lib/docs/install-steps.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");
const client = JSON.parse(read("package.json")) as { name: string; workspaces?: string[] };
const devkit = JSON.parse(read("devkit/package.json")) as {
  name: string;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const steps = partnerInstallSteps();
const commands = steps.commands.flat().map((line) => line.replace(/\s+#.*$/, "").trim());

/** The README's block between its partner-install markers. */
function readmeBlock(readme: string): string {
  const match = /<!-- partner-install:[^>]*-->\n([\s\S]*?)\n<!-- \/partner-install -->/.exec(readme);
  if (!match) throw new Error("README.md has no partner-install block");
  return match[1]!;
}

describe("partner install steps", () => {
  it("install the client as a dependency and the devkit as a dev dependency, from the registry and from tarballs", () => {
    expect(steps.commands).toHaveLength(2);
    expect(commands).toContain(`npm install ${client.name}`);
    expect(commands).toContain(`npm install -D ${devkit.name}`);
    expect(commands).toContain(`npm install ./${client.name}-<version>.tgz`);
    expect(commands).toContain(`npm install -D ./${devkit.name}-<version>.tgz`);
    // The client before the devkit, whose peer dependency it is, in both ways.
    for (const block of steps.commands) {
      const at = (name: string) => block.findIndex((line) => line.startsWith("npm install") && line.includes(name));
      expect(at(client.name)).toBeGreaterThanOrEqual(0);
      expect(at(client.name)).toBeLessThan(at(devkit.name));
    }
  });

  it("name the devkit's peer dependency, as devkit/package.json declares it", () => {
    // The required one: an optional peer (MSW, for partner-api-devkit/msw) is the partner's own choice.
    const optional = (name: string) => devkit.peerDependenciesMeta?.[name]?.optional === true;
    expect(Object.keys(devkit.peerDependencies ?? {}).filter((name) => !optional(name))).toEqual([client.name]);
    expect(steps.markdown).toContain(`\`${client.name}\` is its **peer dependency**`);
  });

  it("pack the devkit from its workspace", () => {
    const workspace = commands.find((line) => line.startsWith("npm pack -w "))?.slice("npm pack -w ".length);
    expect(client.workspaces).toContain(workspace);
    expect(JSON.parse(read(`${workspace}/package.json`)).name).toBe(devkit.name);
  });

  it("the README's partner section shows the guide's commands, byte for byte", () => {
    expect(readmeBlock(read("README.md"))).toBe(installBlocks(steps));
    expect(() => readmeBlock("no block")).toThrow(/no partner-install block/);
    expect(readmeBlock(read("README.md").replace("npm install -D partner", "npm install partner"))).not.toBe(
      installBlocks(steps),
    );
  });

  it("are read from the section alone", () => {
    const guide =
      "# G\n### Install\ntext\n```sh\n# a comment, not a heading\nnpm install a\n```\n### Next\n```sh\nnpm install b\n```\n";
    expect(partnerInstallSteps(guide).commands).toEqual([["# a comment, not a heading", "npm install a"]]);
    expect(() => partnerInstallSteps("# none")).toThrow(/no "### Install" section/);
  });
});
