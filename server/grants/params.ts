import { invalidRequest } from "../errors.ts";

/**
 * A required, non-empty request parameter.
 *
 * @param params the request's parameters
 * @param name the parameter
 * @returns its value
 * @throws {OAuthError} 400 `invalid_request` naming the parameter
 */
export function requireParam(params: ReadonlyMap<string, string>, name: string): string {
  const v = params.get(name);
  if (v === undefined || v === "") throw invalidRequest(`Missing parameter ${name}`);
  return v;
}
