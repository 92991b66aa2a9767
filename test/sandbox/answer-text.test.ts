/**
 * An answer's text with frozen objects' texts kept (devkit/src/sandbox/answer-text.ts): always what JSON.stringify
 * gives, and a kept text never outlives its object (a change puts a new object, with a text of its own).
 */
import { describe, expect, it } from "vitest";
import { answerText } from "../../devkit/src/sandbox/answer-text.ts";
import { deepFreeze } from "../../devkit/src/sandbox/store/tables.ts";
import { seededRandom } from "../helpers/random.ts";

describe("answerText", () => {
  it("gives what JSON.stringify gives: 2,000 bodies drawn at random, frozen parts and not, the same parts twice", () => {
    const random = seededRandom(29);
    const leaves: unknown[] = [0, -1.5, 1e21, 'é\u2028"\\', "", true, false, null, undefined, () => 1, Symbol("s")];
    const draw = (depth: number): unknown => {
      const kind = random.int(depth > 2 ? 1 : 5);
      if (kind === 0) return random.pick(leaves);
      if (kind === 1) return Array.from({ length: random.int(4) }, () => draw(depth + 1));
      if (kind === 2) return new Date(Date.UTC(2030, 0, 1 + random.int(9)));
      const value: Record<string, unknown> = kind === 3 ? {} : Object.create(null);
      // Own fields always (a `__proto__` key defined, not set: setting it on a plain object changes its prototype).
      for (let i = random.int(4); i > 0; i--)
        Object.defineProperty(value, random.pick(["id", "card", "__proto__", "toString", "x y"]), {
          value: draw(depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return value;
    };
    const shared = Array.from({ length: 8 }, () => deepFreeze({ card: draw(1), id: draw(2) }));
    for (let round = 0; round < 2_000; round++) {
      const body: Record<string, unknown> = {};
      for (let i = random.int(4); i > 0; i--) {
        const kind = random.int(4);
        body[random.pick(["cards", "pagination", "card", "items", "n"])] =
          kind === 0
            ? Array.from({ length: random.int(5) }, () => (random.int(3) === 0 ? draw(1) : random.pick(shared)))
            : kind === 1
              ? random.pick(shared)
              : kind === 2
                ? deepFreeze(draw(0))
                : draw(0);
      }
      const whole = random.int(10) === 0 ? deepFreeze(body) : body;
      expect(answerText(whole), `round ${round}`).toBe(JSON.stringify(whole));
    }
    for (const other of [[1, 2], "text", 3, null, Object.create(null), new Date(0)])
      expect(answerText(other)).toBe(JSON.stringify(other));
  });

  it("keeps a frozen record's text while it lives; the record put again after a change is a new object, with its own", () => {
    const card = deepFreeze({ id: "C1", card: { id: "C1", status: "Pending" } });
    expect(answerText({ cards: [card.card] })).toBe('{"cards":[{"id":"C1","status":"Pending"}]}');
    const changed = deepFreeze({ ...card, card: { ...card.card, status: "Active" } });
    expect(answerText({ cards: [changed.card, card.card] })).toBe(
      '{"cards":[{"id":"C1","status":"Active"},{"id":"C1","status":"Pending"}]}',
    );
    // An object not frozen is read afresh every time.
    const open = { id: "C2", status: "Pending" };
    expect(answerText({ card: open })).toContain("Pending");
    open.status = "Active";
    expect(answerText({ card: open })).toContain("Active");
  });
});
