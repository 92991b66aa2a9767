/** The client's public types, derived from the generated `paths`. */
import type { Client } from "openapi-fetch";
import type { paths } from "../generated/schema.js";

type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

/** An operation as a company client sees it: `X-Company-Id` is sent for you, so it is no longer asked for. */
export type WithoutCompanyHeader<Operation> = Operation extends { parameters: infer Parameters }
  ? Parameters extends { header: { "X-Company-Id": unknown } }
    ? Omit<Operation, "parameters"> & {
        parameters: Omit<Parameters, "header"> & { header?: Omit<Parameters["header"], "X-Company-Id"> };
      }
    : Operation
  : Operation;

/** `paths` with the company header taken off every company-scope operation. */
export type CompanyPaths = {
  [Path in keyof paths]: {
    [Key in keyof paths[Path]]: Key extends HttpMethod ? WithoutCompanyHeader<paths[Path][Key]> : paths[Path][Key];
  };
};

/** A client for the partner account. Company-scope operations need `X-Company-Id` on each call, or use `forCompany()`. */
export type PartnerClient = Client<paths> & {
  /** The same client acting for one company: it sends `X-Company-Id` on every company-scope request. */
  forCompany(companyId: string): CompanyClient;
};

/** A client acting for one company (see `forCompany`). */
export type CompanyClient = Client<CompanyPaths> & {
  /** The company this client acts for. */
  readonly companyId: string;
  /** A client acting for another company, with the same settings. */
  forCompany(companyId: string): CompanyClient;
};
