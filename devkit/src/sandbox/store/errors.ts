/** The store's errors the request handler answers for, apart from the stores that throw them (no Node here). */

/** A change could not be made durable: it was rolled back in memory (the records are as the files hold them). */
export class StateNotSavedError extends Error {
  override readonly name = "StateNotSavedError";
}
