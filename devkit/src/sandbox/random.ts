/**
 * The sandbox's only source of chance: a small seeded generator (sfc32) whose four-number state is kept in
 * the account it belongs to, so the same seed and the same calls give the same ids and data, run after run,
 * and a restart from a state file carries on where it stopped.
 */

export type RandomState = [number, number, number, number];

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const HEX = "0123456789abcdef";
const DIGITS = "0123456789";

/** The initial state for a seed and a name (an account's API key): FNV-1a over both, spread four ways. */
export function randomStateFor(seed: number, name: string): RandomState {
  let hash = 0x811c9dc5 ^ seed;
  for (const char of `${seed}:${name}`) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193);
  }
  const state: RandomState = [
    hash >>> 0,
    (hash ^ 0x9e3779b9) >>> 0,
    (hash ^ 0x243f6a88) >>> 0,
    (seed >>> 0) ^ 0x85a308d3,
  ];
  const holder = { random: state };
  const random = new SeededRandom(holder);
  for (let i = 0; i < 12; i++) random.next();
  return holder.random;
}

/** Draws from the state kept in `holder.random` (an account), writing the new state back after each draw. */
export class SeededRandom {
  constructor(private readonly holder: { random: RandomState }) {}

  /** A 32-bit unsigned integer (sfc32). */
  next(): number {
    // The state is updated in place: a draw allocates nothing.
    const state = this.holder.random;
    const a = state[0] >>> 0;
    const b = state[1] >>> 0;
    const c = state[2] >>> 0;
    const d = state[3] >>> 0;
    const t = (((a + b) | 0) + d) | 0;
    const rotated = ((c << 21) | (c >>> 11)) + t;
    state[0] = (b ^ (b >>> 9)) >>> 0;
    state[1] = ((c + (c << 3)) | 0) >>> 0;
    state[2] = (rotated | 0) >>> 0;
    state[3] = ((d + 1) | 0) >>> 0;
    return t >>> 0;
  }

  /** An integer in [0, below). */
  below(below: number): number {
    return this.next() % below;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  /** Built from character codes in one go: a flat string, not a chain of concatenations kept in memory. */
  chars(alphabet: string, length: number): string {
    const codes = new Array<number>(length);
    for (let i = 0; i < length; i++) codes[i] = alphabet.charCodeAt(this.below(alphabet.length));
    return String.fromCharCode(...codes);
  }

  /** A ULID-shaped id (the contract's pattern), all of it from the generator so it is reproducible. */
  ulid(): string {
    const codes = new Array<number>(26);
    codes[0] = CROCKFORD.charCodeAt(this.below(8));
    for (let i = 1; i < 26; i++) codes[i] = CROCKFORD.charCodeAt(this.below(CROCKFORD.length));
    return String.fromCharCode(...codes);
  }

  digits(length: number): string {
    return this.chars(DIGITS, length);
  }

  hex(length: number): string {
    return this.chars(HEX, length);
  }

  base58(length: number): string {
    return this.chars(BASE58, length);
  }

  token(length = 32): string {
    return this.chars(`${BASE58}-_`, length);
  }
}
