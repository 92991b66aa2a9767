/** Responses: the status codes an operation answers with (for a webhook, the partner's answers). */
import { defineFamily } from "./define.ts";

const family = defineFamily("response body", import.meta.url);
export default family;

const success = (status: string) => /^2(\d\d|XX)$/i.test(status);

family.detector("statuses", ["responses"], ({ where, statuses }, out) => {
  for (const { status, before, after } of statuses) {
    const place = `${where} response ${status}`;
    if (before && !after)
      out.emit(success(status) ? "success-status-removed" : "status-removed", place, `response \`${status}\` removed`);
    if (!before && after) out.emit("status-added", place, `response \`${status}\` added`);
  }
});

// scope | kind | detector | level (request, response) | title | oasdiff's check and level (request, response)
family.table(`
  flow | success-status-removed | statuses | error, error | Success (2xx) status removed | -, response-success-status-removed error
  flow | status-removed         | statuses | info, info   | Non-success status removed | -, response-non-success-status-removed info
  flow | status-added           | statuses | info, info   | Status added | -, response-success-status-added info
`);
