/** Responses: the status codes an operation answers with (for a webhook, the partner's answers). */
import { defineFamily, flow } from "./define.ts";

/** A webhook's answers (`request-…`) have no oasdiff counterpart. */
const family = defineFamily("response body", import.meta.url, {
  "success-status-removed": flow("Success (2xx) status removed", ["error", "error"], {
    response: ["response-success-status-removed"],
  }),
  "status-removed": flow("Non-success status removed", ["info", "info"], {
    response: ["response-non-success-status-removed"],
  }),
  "status-added": flow("Status added", ["info", "info"], {
    response: ["response-success-status-added", "response-non-success-status-added"],
  }),
});
export default family;

const success = (status: string) => /^2(\d\d|XX)$/i.test(status);

family.detector(
  "statuses",
  ["responses"],
  ["success-status-removed", "status-removed", "status-added"],
  ({ where, statuses }, out) => {
    for (const { status, before, after } of statuses) {
      const place = `${where} response ${status}`;
      if (before && !after)
        out.emit(
          success(status) ? "success-status-removed" : "status-removed",
          place,
          `response \`${status}\` removed`,
        );
      if (!before && after) out.emit("status-added", place, `response \`${status}\` added`);
    }
  },
);
