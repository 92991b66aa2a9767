/** The fixture corpus (support/corpus.ts) for security and headers, documentation and metadata. */
import { type Case, corpusSuite, input } from "./support/corpus.ts";

const families: Record<string, Case[]> = {
  "security and headers": [
    {
      name: "an OAuth scope added to an operation's requirement",
      base: (d) => (d.paths["/items"].get.security = [{ ApiKey: ["items:read"] }]),
      mutate: (d) => d.paths["/items"].get.security[0].ApiKey.push("items:admin"),
      check: "security-scope-added",
      breaking: true,
    },
    {
      name: "security required on an operation that allowed anonymous calls",
      base: (d) => (d.paths["/items"].get.security = []),
      mutate: (d) => delete d.paths["/items"].get.security,
      check: "security-anonymous-access-removed",
      breaking: true,
    },
    {
      name: "an operation opened to anonymous calls",
      mutate: (d) => (d.paths["/items"].get.security = []),
      check: "security-made-optional",
      breaking: false,
    },
    {
      name: "the anonymous alternative removed ([{ApiKey}, {}] → [{ApiKey}])",
      base: (d) => (d.paths["/items"].get.security = [{ ApiKey: [] }, {}]),
      mutate: (d) => d.paths["/items"].get.security.pop(),
      check: "security-anonymous-access-removed",
      breaking: true,
    },
    {
      name: "a security alternative added",
      mutate: (d) => (d.paths["/items"].get.security = [{ ApiKey: [] }, { Bearer: [] }]),
      check: "security-requirement-added",
      breaking: false,
    },
    {
      name: "the API key moved to another header (security scheme wire change)",
      mutate: (d) => (d.components.securitySchemes.ApiKey.name = "Authorization"),
      check: "security-scheme-wire-changed",
      breaking: true,
    },
    {
      name: "the OpenID Connect URL of a scheme changed (where clients get their tokens)",
      base: (d) =>
        (d.components.securitySchemes.Oidc = {
          type: "openIdConnect",
          openIdConnectUrl: "https://a.example/.well-known/openid-configuration",
        }),
      mutate: (d) =>
        (d.components.securitySchemes.Oidc.openIdConnectUrl = "https://b.example/.well-known/openid-configuration"),
      check: "security-scheme-wire-changed",
      breaking: true,
    },
    {
      name: "an HTTP scheme name's case changed (bearer → Bearer: the same scheme)",
      base: (d) => (d.components.securitySchemes.Bearer = { type: "http", scheme: "bearer" }),
      mutate: (d) => (d.components.securitySchemes.Bearer.scheme = "Bearer"),
      check: "security-scheme-changed",
      breaking: false,
    },
    {
      name: "a security scheme's description changed",
      mutate: (d) => (d.components.securitySchemes.ApiKey.description = "Your key."),
      check: "request-documentation-changed",
      breaking: false,
    },
    {
      name: "a required response header removed",
      mutate: (d) => delete d.paths["/items"].get.responses["200"].headers["X-Total"],
      check: "response-parameter-removed",
      breaking: true,
    },
    {
      name: "a response header's maximum raised (its values, which oasdiff does not check: information)",
      base: (d) => (d.paths["/items"].get.responses["200"].headers["X-Total"].schema.maximum = 1000),
      mutate: (d) => (d.paths["/items"].get.responses["200"].headers["X-Total"].schema.maximum = 5000),
      check: "response-header-values-changed",
      breaking: false,
    },
    {
      name: "a response header's type changed (integer → string: text that was a number may be any text now)",
      mutate: (d) => (d.paths["/items"].get.responses["200"].headers["X-Total"].schema.type = "string"),
      check: "response-type-widened",
      breaking: true,
    },
    {
      name: "a response header added",
      mutate: (d) => (d.paths["/items"].get.responses["200"].headers["X-Page"] = { schema: { type: "string" } }),
      check: "response-parameter-added-optional",
      breaking: false,
    },
  ],
  // Never breaking: no breaking counterpart to pair with.
  "documentation and metadata": [
    {
      name: "an operationId changed (warning: it renames the generated client method)",
      mutate: (d) => (d.paths["/items"].get.operationId = "listAllItems"),
      check: "operation-id-changed",
      breaking: false,
    },
    {
      name: "a server removed",
      base: (d) => (d.servers = [{ url: "https://a.example" }, { url: "https://b.example" }]),
      mutate: (d) => d.servers.pop(),
      check: "server-removed",
      breaking: false,
    },
    {
      name: "a default changed",
      mutate: (d) => (input(d).note.default = "x"),
      check: "request-default-changed",
      breaking: false,
    },
  ],
};

corpusSuite(families);
