import { describe, expect, it } from "vitest";
import devkitManifest from "../../devkit/package.json" with { type: "json" };
import { MINIMUM_NODE, TESTED_NODE_MAJORS, unsupportedNode } from "../../devkit/src/cli/node-version.ts";
import { DEVKIT_NODES } from "../runtimes/target-names.ts";

describe("the Node.js versions partner-api runs on", () => {
  it("refuses a Node older than 22.13 (no node:sqlite), naming its version and what to use", () => {
    for (const old of ["22.12.0", "22.9.1", "20.20.2", "20.19.0", "21.7.3", "18.20.4", "16.0.0"]) {
      const message = unsupportedNode(old);
      expect(message, old).toContain(`this is Node.js ${old}`);
      expect(message, old).toMatch(
        /needs Node\.js 22\.13 or later \(for node:sqlite; .*Node\.js 24 \(nvm install 24\)/,
      );
    }
  });

  it("accepts 22.13 and later, newer majors included", () => {
    for (const version of ["22.13.0", "22.23.3", "23.0.0", "24.21.0", "26.10.0", "28.0.0"])
      expect(unsupportedNode(version), version).toBeUndefined();
  });

  it("says what devkit/package.json's engines says, and tests the Nodes it names", () => {
    expect(devkitManifest.engines.node).toBe(`>=${MINIMUM_NODE.join(".")}`);
    expect(DEVKIT_NODES.map((node) => Number(node.slice(4)))).toEqual([...TESTED_NODE_MAJORS]);
  });
});
