export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * An error that maps straight onto the contract's error envelope. Services throw these; the HTTP
 * layer renders them, and job processors record them.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, details?: ErrorDetail[], headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) => new AppError(400, 'bad_request', message, details);
export const unauthenticated = (message = 'Authentication required', scheme = 'Bearer') =>
  new AppError(401, 'unauthenticated', message, undefined, { 'WWW-Authenticate': scheme });
export const forbidden = (message = 'You do not have access to this resource') => new AppError(403, 'forbidden', message);
export const notFound = (what = 'Resource') => new AppError(404, 'not_found', `${what} not found`);
export const conflict = (code: string, message: string, details?: ErrorDetail[]) => new AppError(409, code, message, details);
export const validationFailed = (details: ErrorDetail[], message = 'Request validation failed') =>
  new AppError(422, 'validation_failed', message, details);
export const unprocessable = (code: string, message: string, details?: ErrorDetail[]) => new AppError(422, code, message, details);
export const upstreamFailed = (message: string, details?: ErrorDetail[]) => new AppError(502, 'upstream_failed', message, details);
export const serviceUnavailable = (message = 'A backing service is unavailable') => new AppError(503, 'service_unavailable', message);
export const rateLimited = (retryAfterSec: number) =>
  new AppError(429, 'rate_limited', 'Too many requests, slow down', undefined, { 'Retry-After': String(retryAfterSec) });

/** The driver's error under objection's wrapper (objection wraps database errors in its own classes). */
export function nativeDbError(error: unknown): { code?: string; constraint?: string } {
  return ((error as { nativeError?: unknown })?.nativeError ?? error) as { code?: string; constraint?: string };
}

/** PostgreSQL unique violation, with the constraint (index) name that fired. */
export function uniqueViolation(error: unknown): string | null {
  const pgError = nativeDbError(error);
  return pgError?.code === '23505' ? (pgError.constraint ?? '') : null;
}

/** Errors that mean a backing store (PostgreSQL or Redis) cannot be reached: rendered as 503. */
export function isBackendDown(error: unknown): boolean {
  const e = nativeDbError(error) as { code?: string; message?: string; name?: string };
  if (!e) return false;
  const codes = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '53300', 'KnexTimeoutError'];
  if (e.code && codes.includes(e.code)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  return /Connection is closed|Stream isn't writeable|enableOfflineQueue|Reached the max retries per request/i.test(e.message ?? '');
}
