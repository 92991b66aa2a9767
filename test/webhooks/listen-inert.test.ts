/**
 * `webhooks listen` prints what an unverified sender wrote (its event type, its id, the reason it was refused)
 * inert: an escape sequence that would clear the screen or colour the line, a carriage return that would
 * overwrite it, a newline that would forge a line of its own, all written as visible escapes. Run in process
 * through the one runner, on a free loopback port, for a bounded number of deliveries.
 */
import { runCommand } from "partner-api-devkit/cli";
import { describe, expect, it } from "vitest";
import { webhooksCommands } from "../../devkit/src/cli/webhooks.ts";

describe("webhooks listen", () => {
  it("prints a hostile delivery's type and id with every control character escaped", async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const running = runCommand(
      webhooksCommands("partner-api webhooks"),
      ["listen", "--port", "0", "--secret", "whsec_listen", "--no-exit-with-parent"],
      { out: (text) => lines.push(text), err: (text) => lines.push(text) },
      controller.signal,
    );
    let port: number | undefined;
    for (let tries = 0; port === undefined && tries < 500; tries++) {
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(lines.join("\n"));
      if (match) port = Number(match[1]);
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const forged = "\u001b[2J\u001b[H\r200 handled company.kyc_link.issued evt_real\n12:00:00.000 200 handled";
    for (const body of [
      JSON.stringify({ id: `evt_${forged}`, type: forged, payload: {}, createdAt: "2026-01-01T00:00:00Z" }),
      JSON.stringify({ id: "evt_\u009b31m\u202e", type: "company.kyc_link.issued\u0007", payload: {} }),
    ]) {
      const answer = await fetch(`http://127.0.0.1:${port}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signature": "0".repeat(64) },
        body,
      });
      expect(answer.status).toBe(401);
    }
    controller.abort();
    expect(await running).toBe(0);
    const printed = lines.join("\n");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    const deliveries = lines.filter((line) => /^\d\d:\d\d:\d\d\.\d{3} 401 /.test(line));
    expect(deliveries).toHaveLength(2);
    // One line each: the forged newline and carriage return are shown, not obeyed.
    expect(deliveries[0]).toContain(
      "\\x1b[2J\\x1b[H\\x0d200 handled company.kyc_link.issued evt_real\\x0a12:00:00.000",
    );
    expect(deliveries[0]).toMatch(/\[unverified\]/);
    expect(deliveries[1]).toContain("company.kyc_link.issued\\x07 evt_\\x9b31m\\u202e [unverified]");
    expect(printed).toMatch(/stopped: 2 deliveries, 0 accepted, 2 refused/);
  });
});
