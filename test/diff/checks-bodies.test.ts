/** The fixture corpus (support/corpus.ts) for request and response bodies. */
import { type Case, corpusSuite, input, item, renameMedia, schemas } from "./support/corpus.ts";

const families: Record<string, Case[]> = {
  "request bodies": [
    {
      name: "a required request field added",
      mutate: (d) => {
        input(d).colour = { type: "string" };
        schemas(d).ItemInput.required.push("colour");
      },
      check: "request-field-added-required",
      breaking: true,
    },
    {
      name: "an optional request field added",
      mutate: (d) => (input(d).colour = { type: "string" }),
      check: "request-field-added-optional",
      breaking: false,
    },
    {
      name: "a request field became required",
      mutate: (d) => schemas(d).ItemInput.required.push("note"),
      check: "request-field-became-required",
      breaking: true,
    },
    {
      name: "a request field became optional",
      mutate: (d) => (schemas(d).ItemInput.required = []),
      check: "request-field-became-optional",
      breaking: false,
    },
    {
      name: "a request field removed (oasdiff: warning; here an error, see docs/design/oasdiff-parity.md)",
      mutate: (d) => delete input(d).note,
      check: "request-optional-field-removed",
      breaking: true,
    },
    {
      name: "a required read-only field added to a request",
      mutate: (d) => {
        input(d).createdAt = { type: "string", readOnly: true };
        schemas(d).ItemInput.required.push("createdAt");
      },
      check: "request-ignored-field-changed",
      breaking: false,
    },
    {
      name: "a read-only request field became required",
      mutate: (d) => schemas(d).ItemInput.required.push("id"),
      check: "request-ignored-field-changed",
      breaking: false,
    },
    {
      name: "a request body became required",
      base: (d) => (d.paths["/items"].post.requestBody.required = false),
      mutate: (d) => (d.paths["/items"].post.requestBody.required = true),
      check: "request-body-became-required",
      breaking: true,
    },
    {
      name: "a request body became optional",
      mutate: (d) => (d.paths["/items"].post.requestBody.required = false),
      check: "request-body-became-optional",
      breaking: false,
    },
    {
      name: "a request media type removed",
      mutate: (d) => {
        const content = d.paths["/items"].post.requestBody.content;
        content["application/merge-patch+json"] = content["application/json"];
        delete content["application/json"];
      },
      check: "request-media-type-removed",
      breaking: true,
    },
    {
      name: "a request media type added",
      mutate: (d) => {
        const content = d.paths["/items"].post.requestBody.content;
        content["application/xml"] = content["application/json"];
      },
      check: "request-media-type-added",
      breaking: false,
    },
  ],
  "response bodies": [
    {
      name: "a required response field removed",
      mutate: (d) => {
        delete item(d).name;
        schemas(d).Item.required = ["id"];
      },
      check: "response-required-field-removed",
      breaking: true,
    },
    {
      name: "an optional response field removed",
      mutate: (d) => delete item(d).note,
      check: "response-optional-field-removed",
      breaking: true, // this API marks no response field required: partners read every documented one
    },
    {
      name: "a write-only response field removed",
      mutate: (d) => delete item(d).secret,
      check: "response-ignored-field-changed",
      breaking: false,
    },
    {
      name: "a required write-only response field no longer write-only (oasdiff: warning)",
      base: (d) => schemas(d).Item.required.push("secret"),
      mutate: (d) => delete item(d).secret.writeOnly,
      check: "response-required-field-no-longer-write-only",
      breaking: true,
    },
    {
      name: "a response field became optional",
      mutate: (d) => (schemas(d).Item.required = ["id"]),
      check: "response-field-became-optional",
      breaking: true,
    },
    {
      name: "a response field became required",
      mutate: (d) => schemas(d).Item.required.push("note"),
      check: "response-field-became-required",
      breaking: false,
    },
    {
      name: "a required response field added",
      mutate: (d) => {
        item(d).createdAt = { type: "string" };
        schemas(d).Item.required.push("createdAt");
      },
      check: "response-field-added-required",
      breaking: false,
    },
    {
      name: "a success status removed",
      mutate: (d) => {
        const responses = d.paths["/items"].post.responses;
        responses["200"] = responses["201"];
        delete responses["201"];
      },
      check: "response-success-status-removed",
      breaking: true,
    },
    {
      name: "an error status removed",
      mutate: (d) => delete d.paths["/items"].post.responses["422"],
      check: "response-status-removed",
      breaking: false,
    },
    {
      name: "a response media type removed",
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/xml"] = content["application/json"];
        delete content["application/json"];
      },
      check: "response-media-type-removed",
      breaking: true,
    },
    {
      name: "a response media type made more general (application/json → application/*)",
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/*"] = content["application/json"];
        delete content["application/json"];
      },
      check: "response-media-type-widened",
      breaking: true,
    },
    {
      name: "a response media type made more specific (application/* → application/json)",
      base: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/*"] = content["application/json"];
        delete content["application/json"];
      },
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/json"] = content["application/*"];
        delete content["application/*"];
      },
      check: "response-media-type-narrowed",
      breaking: false,
    },
    {
      name: "a field's type changed in the itemSchema of a streamed response (OpenAPI 3.2)",
      base: (d) => {
        d.openapi = "3.2.0";
        d.paths["/items"].get.responses["200"].content["application/jsonl"] = {
          itemSchema: { type: "object", properties: { id: { type: "string" } } },
        };
      },
      mutate: (d) =>
        (d.paths["/items"].get.responses["200"].content["application/jsonl"].itemSchema.properties.id.type = "integer"),
      check: "response-type-changed",
      breaking: true,
    },
    {
      name: "an optional field added to the itemSchema of a streamed response (OpenAPI 3.2)",
      base: (d) => {
        d.openapi = "3.2.0";
        d.paths["/items"].get.responses["200"].content["application/jsonl"] = {
          itemSchema: { type: "object", properties: { id: { type: "string" } } },
        };
      },
      mutate: (d) =>
        (d.paths["/items"].get.responses["200"].content["application/jsonl"].itemSchema.properties.note = {
          type: "string",
        }),
      check: "response-field-added-optional",
      breaking: false,
    },
    {
      name: "a parameter added to a response media type (application/json → application/json; charset=utf-8)",
      mutate: (d) =>
        renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/json; charset=utf-8"),
      check: "response-media-type-parameters-added",
      breaking: false,
    },
    {
      name: "a parameter removed from a response media type (the server may now send any charset)",
      base: (d) =>
        renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/json; charset=utf-8"),
      mutate: (d) =>
        renameMedia(
          d.paths["/items/{itemId}"].get.responses["200"].content,
          "application/json",
          "application/json; charset=utf-8",
        ),
      check: "response-media-type-parameters-removed",
      breaking: true,
    },
    {
      name: "a response media type parameter's value changed (charset=utf-8 → charset=utf-16)",
      base: (d) =>
        renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/json; charset=utf-8"),
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/json; charset=utf-16"] = content["application/json; charset=utf-8"];
        delete content["application/json; charset=utf-8"];
      },
      check: "response-media-type-parameters-changed",
      breaking: true,
    },
    {
      name: "a response media type parameter respelled (charset=utf-8 → Charset=UTF-8: the same)",
      base: (d) =>
        renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/json; charset=utf-8"),
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/json;Charset=UTF-8"] = content["application/json; charset=utf-8"];
        delete content["application/json; charset=utf-8"];
      },
      check: "none",
      breaking: false,
    },
    {
      name: "a parameter added to a request media type (only UTF-8 accepted now)",
      mutate: (d) => renameMedia(d.paths["/items"].post.requestBody.content, "application/json; charset=utf-8"),
      check: "request-media-type-parameters-added",
      breaking: true,
    },
    {
      name: "a response media type made more specific by a suffix (application/json → application/problem+json)",
      mutate: (d) => renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/problem+json"),
      check: "response-media-type-narrowed",
      breaking: false,
    },
    {
      name: "a response media type made more general (application/problem+json → application/json)",
      base: (d) => renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/problem+json"),
      mutate: (d) =>
        renameMedia(
          d.paths["/items/{itemId}"].get.responses["200"].content,
          "application/json",
          "application/problem+json",
        ),
      check: "response-media-type-widened",
      breaking: true,
    },
  ],
};

corpusSuite(families);
