/** Errors of the provisioning API, in its two body shapes: `{"detail": "..."}` and `{"field": ["..."]}`. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly expose = true;
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : JSON.stringify(body));
  }
}

export const detail = (status: number, text: string, headers?: Record<string, string>) => new ApiError(status, { detail: text }, headers);
export const notFound = () => detail(404, 'Not found.');
export const fieldErrors = (fields: Record<string, string[]>) => new ApiError(400, fields);
