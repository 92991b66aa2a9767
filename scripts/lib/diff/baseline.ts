/**
 * The release baseline: the contract as last released (bundled JSON), committed by `npm run release`. The CI gate
 * compares the working contract with it, so every change since the release is seen, however many commits it took.
 * It lives outside generated/ (which `npm run bundle` rewrites) and outside openapi/ (which the linters read).
 */
export const RELEASE_BASELINE = "release/openapi.json";
