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
    let [a, b, c, d] = this.holder.random;
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    this.holder.random = [a >>> 0, b >>> 0, c >>> 0, d >>> 0];
    return t >>> 0;
  }

  /** An integer in [0, below). */
  below(below: number): number {
    return this.next() % below;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  chars(alphabet: string, length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[this.below(alphabet.length)];
    return out;
  }

  /** A ULID-shaped id (the contract's pattern), all of it from the generator so it is reproducible. */
  ulid(): string {
    return this.chars("01234567", 1) + this.chars(CROCKFORD, 25);
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
