/** The client's public types, derived from the generated `paths`. */
import type { Client, ClientPathsWithMethod, FetchResponse, MaybeOptionalInit, Middleware } from "openapi-fetch";
import type { paths } from "../generated/schema.js";
import type { HttpMethod } from "./http-methods.ts";

/** The `fetch` the client sends requests with: openapi-fetch hands it a built `Request`. */
export type Fetch = (request: Request) => Promise<Response>;

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

// openapi-fetch's rule for when `init` may be left out (its own `InitParam`, which it does not export).
type RequiredKeysOfHelper<T> = { [K in keyof T]: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];
type RequiredKeysOf<T> = RequiredKeysOfHelper<T> extends undefined ? never : RequiredKeysOfHelper<T>;
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** The successful half of an openapi-fetch result: `data` is there, `error` is not. */
export type SuccessResult<Result> = Result extends { data?: infer Data; response: Response }
  ? Result extends { error?: never }
    ? { data: Exclude<Data, undefined>; error?: never; response: Response }
    : never
  : never;

type PathsOf<Paths extends {}> = Paths & Record<string, Record<HttpMethod, Record<string | number, unknown>>>;

/** An openapi-fetch method that resolves to the success result and throws `ApiError` for any other answer. */
export type ThrowingMethod<Paths extends {}, Method extends HttpMethod> = <
  Path extends ClientPathsWithMethod<Client<Paths>, Method>,
  Init extends MaybeOptionalInit<PathsOf<Paths>[Path], Method>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<SuccessResult<FetchResponse<PathsOf<Paths>[Path][Method], Init, `${string}/${string}`>>>;

/** openapi-fetch's client with `throwOnError`: every call resolves to `{ data, response }` or throws `ApiError`. */
export type ThrowingClient<Paths extends {}> = {
  [Method in HttpMethod as Uppercase<Method>]: ThrowingMethod<Paths, Method>;
} & {
  request<
    Method extends HttpMethod,
    Path extends ClientPathsWithMethod<Client<Paths>, Method>,
    Init extends MaybeOptionalInit<PathsOf<Paths>[Path], Method>,
  >(
    method: Method,
    url: Path,
    ...init: InitParam<Init>
  ): Promise<SuccessResult<FetchResponse<PathsOf<Paths>[Path][Method], Init, `${string}/${string}`>>>;
  use(...middleware: Middleware[]): void;
  eject(...middleware: Middleware[]): void;
};

/** The openapi-fetch client a partner client is, by whether it throws on error answers. */
type ClientOf<Paths extends {}, ThrowOnError extends boolean> = ThrowOnError extends true
  ? ThrowingClient<Paths>
  : Client<Paths>;

/**
 * A client for the partner account. Company-scope operations need `X-Company-Id` on each call, or use
 * `forCompany()`. With `throwOnError: true`, every call resolves to `{ data, response }` or throws `ApiError`.
 */
export type PartnerClient<ThrowOnError extends boolean = false> = ClientOf<paths, ThrowOnError> & {
  /** The same client acting for one company: it sends `X-Company-Id` on every company-scope request. */
  forCompany(companyId: string): CompanyClient<ThrowOnError>;
};

/** A client acting for one company (see `forCompany`). */
export type CompanyClient<ThrowOnError extends boolean = false> = ClientOf<CompanyPaths, ThrowOnError> & {
  /** The company this client acts for. */
  readonly companyId: string;
  /** A client acting for another company, with the same settings. */
  forCompany(companyId: string): CompanyClient<ThrowOnError>;
};
