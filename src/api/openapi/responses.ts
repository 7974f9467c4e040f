import { isJoi, toOpenApi, type Json } from './joi-schema.js';

/** The contract's error codes (API.md, Conventions), listed in the document so clients can switch on them. */
export const ERROR_CODES: Record<string, number> = {
  bad_request: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  email_taken: 409,
  slug_taken: 409,
  code_taken: 409,
  insufficient_inventory: 409,
  cart_not_open: 409,
  payment_not_completed: 409,
  already_fulfilled: 409,
  last_owner: 409,
  token_revoked: 409,
  secret_unreadable: 409,
  campaign_not_cancellable: 409,
  product_in_use: 409,
  discount_in_use: 409,
  order_fulfilled: 409,
  order_not_refundable: 409,
  refund_exceeds_payment: 409,
  refund_failed: 409,
  refund_not_pending: 409,
  payment_disputed: 409,
  url_taken: 409,
  webhook_limit_reached: 409,
  import_running: 409,
  job_not_retryable: 409,
  job_not_cancellable: 409,
  job_input_gone: 409,
  invoice_void: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  invalid_token: 422,
  discount_not_applicable: 422,
  review_not_verified: 422,
  template_invalid: 422,
  rate_limited: 429,
  internal_error: 500,
  upstream_failed: 502,
  service_unavailable: 503,
  tax_provider_unavailable: 503
};

export const ERROR_RESPONSE = {
  type: 'object',
  required: ['success', 'error', 'meta'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { $ref: '#/components/schemas/ErrorCode' },
        message: { type: 'string' },
        details: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } }
      }
    },
    meta: { type: 'object' }
  }
};

export const SUCCESS_RESPONSE = {
  type: 'object',
  required: ['success', 'data', 'meta'],
  properties: { success: { type: 'boolean', enum: [true] }, data: { type: 'object' }, meta: { type: 'object' } }
};

export const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted (work continues in a job)', 204: 'No content', 400: 'Bad request', 401: 'Unauthenticated',
  403: 'Forbidden', 404: 'Not found', 409: 'Conflict', 410: 'Gone', 413: 'Payload too large', 415: 'Unsupported media type',
  422: 'Validation failed', 429: 'Rate limited', 502: 'Upstream failed', 503: 'Service unavailable'
};

interface RouteResponseSettings {
  status?: Record<string, unknown>;
  schema?: unknown;
}

/**
 * The success statuses of a route: those its joi response schemas declare (`response.status`) when
 * it has them (a PUT may answer 201 created or 200 updated), else the status its handler sets
 * (`.code(201)` / `.code(202)`), else 200.
 */
export function successStatuses(settings: { response?: unknown; handler?: unknown }): number[] {
  const declared = Object.keys((settings.response as RouteResponseSettings | undefined)?.status ?? {})
    .map(Number)
    .filter((code) => code >= 200 && code < 300)
    .sort();
  if (declared.length) return declared;
  const source = typeof settings.handler === 'function' ? settings.handler.toString() : '';
  const coded = /\.code\((20[0-9])\)/.exec(source);
  return [coded ? Number(coded[1]) : 200];
}

/** The envelope around the route's joi response schema for that status (or any object). */
export function successSchema(settings: { response?: unknown }, status: number, components: Record<string, Json>) {
  const response = settings.response as RouteResponseSettings | undefined;
  const schema = response?.status?.[status] ?? response?.schema;
  if (!isJoi(schema)) return { $ref: '#/components/schemas/SuccessEnvelope' };
  return {
    type: 'object',
    required: ['success', 'data', 'meta'],
    properties: { success: { type: 'boolean', enum: [true] }, data: toOpenApi(schema, components), meta: { type: 'object' } }
  };
}

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

export interface ErrorSources {
  method: string;
  /** The route's first auth strategy, if any. */
  strategy: string | undefined;
  tenancy: unknown;
  hasParams: boolean;
  /** `plugins.openapi.errors`: what its business rules answer. */
  declared?: number[];
}

/**
 * The failures a route can answer, from what it checks and what the server checks for every route. hapi reads the body of every POST, PUT,
 * PATCH and DELETE, whether or not the route wants one: a content type the route does not allow is
 * 415, a body over its limit 413, one that does not parse (or, unparsed, that its receiver refuses)
 * 400.
 */
export function errorStatuses({ method, strategy, tenancy, hasParams, declared = [] }: ErrorSources): number[] {
  // Every route: 422 for input its joi schemas refuse, and for a NUL character in any param, query
  // or body, which plugins/validation.ts refuses before any handler runs (PostgreSQL cannot store it).
  const statuses = new Set<number>([422, 503, ...declared]);
  if (BODY_METHODS.has(method)) [400, 413, 415].forEach((code) => statuses.add(code));
  if (hasParams) statuses.add(404);
  if (strategy) statuses.add(401);
  if (strategy === 'storefront' || strategy === 'api-key') statuses.add(429);
  if (tenancy) {
    statuses.add(400);
    statuses.add(403);
  }
  return [...statuses].sort();
}
