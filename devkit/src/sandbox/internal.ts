/**
 * Choices of the sandbox that are not options (nor public): the persistence benchmark sets `legacy` to measure
 * the state file as it was before the journal (the whole state rewritten on each change) beside the journal.
 */
export const storeChoice = { legacy: false };
