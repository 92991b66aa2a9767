/**
 * The form every receiver URL must have, wherever the sandbox runs (Node, or a browser through
 * partner-api-devkit/msw): http(s), with no user name or password. receivers.ts adds the checks of addresses.
 */

/** The URL, or why its form is refused (a phrase that follows "the url"). */
export function receiverUrlForm(text: string): { url: URL } | { refusal: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { refusal: "is not a URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { refusal: `must be http: or https:, not ${url.protocol}` };
  if (url.username !== "" || url.password !== "")
    return {
      refusal:
        "must not carry a user name or password (it would be shown wherever the URL is): sign-in for a receiver is its signing secret",
    };
  return { url };
}
