/** The store's errors the request handler answers for, apart from the stores that throw them (no Node here). */

/** A change could not be made durable: it was rolled back (the records are as the database holds them). */
export class StateNotSavedError extends Error {
  override readonly name = "StateNotSavedError";
}
