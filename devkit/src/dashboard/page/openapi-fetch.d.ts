// The page imports openapi-fetch as ./openapi-fetch.js, the package's ES module served beside it (dashboard/index.ts).
export * from "openapi-fetch";
export { default } from "openapi-fetch";
