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

/** PostgreSQL CHECK violation, with the constraint name that fired. */
export function checkViolation(error: unknown): string | null {
  const pgError = error as { code?: string; constraint?: string };
  return pgError?.code === '23514' ? (pgError.constraint ?? '') : null;
}

/**
 * A PostgreSQL data exception (class 22: bad text representation, out of range, NUL byte...) or
 * integrity violation (class 23) as the contract error it stands for, or null for anything else.
 * The envelope uses it as a net: services should have refused the input first, with a better message.
 */
export function postgresDataError(error: unknown): AppError | null {
  const e = error as { code?: unknown; routine?: unknown; severity?: unknown };
  if (!e || typeof e.code !== 'string' || !/^2[23][0-9A-Z]{3}$/.test(e.code)) return null;
  // Only errors that came from the PostgreSQL server (pg's DatabaseError carries severity and routine).
  if (typeof e.severity !== 'string') return null;
  switch (e.code) {
    case '23505':
      return conflict('conflict', 'This conflicts with an existing record');
    case '23503':
      return conflict('conflict', 'This refers to a record that does not exist or is still referred to');
    case '23514':
    case '23P01':
      return conflict('conflict', 'This change would break a rule of the stored data');
    case '22003':
      return validationFailed([{ path: 'body', message: 'a number is out of the range this field holds' }]);
    default:
      return validationFailed([{ path: 'body', message: 'a value is not valid for its field' }]);
  }
}

/** Errors that mean a backing store (PostgreSQL or Redis) cannot be reached: rendered as 503. */
export function isBackendDown(error: unknown): boolean {
  const e = nativeDbError(error) as { code?: string; message?: string; name?: string };
  if (!e) return false;
  const codes = [
    'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
    // PostgreSQL: shutting down, starting up, too many connections, database missing, connection failures, statement timeout.
    '57P01', '57P02', '57P03', '53300', '3D000', '08000', '08001', '08003', '08006', '57014', 'KnexTimeoutError'
  ];
  if (e.code && codes.includes(e.code)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  // The last ones are a Redis Cluster's: slots without a master, a slot map that cannot be fetched.
  return /Connection is closed|Stream isn't writeable|enableOfflineQueue|Reached the max retries per request|Connection terminated|timeout exceeded when trying to connect|CLUSTERDOWN|TRYAGAIN|Failed to refresh slots cache|None of startup nodes is available/i.test(
    e.message ?? ''
  );
}
