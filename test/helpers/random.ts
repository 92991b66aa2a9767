/**
 * A small seeded generator (mulberry32) for tests that draw at random: the same seed draws the same values, so a
 * failure names the seed that reproduces it. The sandbox's own chance is devkit/src/sandbox/random.ts (its
 * state lives in an account); this one is for the tests' own draws.
 */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  /** A number in [0, 1). */
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  /** A whole number in [0, below). */
  const int = (below: number) => Math.floor(next() * below);
  /** One of the items. */
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}
