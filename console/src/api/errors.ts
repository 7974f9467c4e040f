/** The contract's error body: `{ success: false, error: { code, message, details: [{ path, message }] } }`. */
export interface ApiErrorBody {
  error?: { code?: string; message?: string; details?: Array<{ path?: string; message?: string }> };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ path?: string; message?: string }> = []
  ) {
    super(message);
  }

  /** The message for one field (`details[].path`, e.g. `storeSlug` or `variants.0.sku`). */
  field(path: string): string | undefined {
    return this.details.find((detail) => detail.path === path)?.message;
  }
}

/** The data of an openapi-fetch answer, or an ApiError carrying the contract's message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined && result.response.ok) return result.data;
  const body = (result.error ?? {}) as ApiErrorBody;
  throw new ApiError(result.response.status, body.error?.code ?? 'error', body.error?.message ?? `Request failed (${result.response.status})`, body.error?.details ?? []);
}

export function fieldError(error: unknown, path: string): string | undefined {
  return error instanceof ApiError ? error.field(path) : undefined;
}
