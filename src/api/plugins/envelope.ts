import Boom from '@hapi/boom';
import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { AppError, isBackendDown, postgresDataError } from '../../errors.js';

/** Marks a handler result that carries `meta` (pagination, job info) beside its `data`. */
export class Enveloped {
  constructor(
    readonly data: unknown,
    readonly meta: Record<string, unknown> = {}
  ) {}
}

export const withMeta = (data: unknown, meta: Record<string, unknown>) => new Enveloped(data, meta);

/** The success envelope itself; the one place its shape is written. */
export const successBody = (data: unknown, meta: Record<string, unknown> = {}) => ({ success: true, data, meta });

/** The same envelope around `data` that is already JSON text (built in SQL), without parsing it. */
export const successBodyText = (dataJson: string, meta: Record<string, unknown> = {}) => `{"success":true,"data":${dataJson},"meta":${JSON.stringify(meta)}}`;

const BOOM_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  502: 'upstream_failed',
  503: 'service_unavailable',
  504: 'upstream_failed'
};

function errorBody(code: string, message: string, details?: unknown[]) {
  return { success: false, error: details ? { code, message, details } : { code, message }, meta: {} };
}

/** The response for an AppError (also used where hapi's own error path cannot be taken, e.g. inside auth). */
export function appErrorResponse(h: ResponseToolkit, error: AppError) {
  const response = h.response(errorBody(error.code, error.message, error.details)).code(error.status);
  for (const [name, value] of Object.entries(error.headers)) response.header(name, value);
  return response;
}

function renderError(request: Request, h: ResponseToolkit, error: Error) {
  if (error instanceof AppError) return appErrorResponse(h, error);
  // A net under the services: a PostgreSQL data or constraint error that slipped past validation is
  // the caller's input or a state conflict, never a 500. Logged so the missing check gets written.
  const dataError = postgresDataError(error);
  if (dataError) {
    request.server.app.ctx.log.warn({ pgCode: (error as { code?: string }).code, requestId: request.info.id, route: request.route.path }, 'database rejected input');
    return appErrorResponse(h, dataError);
  }
  const boom = Boom.isBoom(error) ? error : Boom.boomify(error);
  let status = boom.output.statusCode;
  // hapi's own request-parsing failures arrive as Boom errors with hapi's wording: keep the status,
  // use our codes and a message that does not leak internals.
  if (status >= 500) {
    if (isBackendDown(error)) {
      return h.response(errorBody('service_unavailable', 'A backing service is unavailable')).code(503);
    }
    request.log(['error'], error);
    request.server.app.ctx.log.error({ err: { message: error.message, stack: error.stack }, requestId: request.info.id }, 'unhandled error');
    status = status === 503 || status === 502 ? status : 500;
    const message = status === 500 ? 'Something went wrong on our side' : boom.output.payload.message;
    return h.response(errorBody(status === 500 ? 'internal_error' : BOOM_CODES[status]!, message)).code(status);
  }
  const code = BOOM_CODES[status] ?? 'bad_request';
  const message = status === 400 && /JSON/i.test(boom.message) ? 'Malformed JSON body' : boom.output.payload.message;
  const response = h.response(errorBody(code, message)).code(status);
  for (const [name, value] of Object.entries(boom.output.headers)) {
    if (value === undefined) continue;
    response.header(name, name.toLowerCase() === 'www-authenticate' ? distinctChallenges(String(value)) : String(value));
  }
  return response;
}

/**
 * hapi answers a request no strategy of a route authenticated with every strategy's challenge,
 * joined: an admin route tries the API key, then the JWT, and both are `Bearer`, so clients got
 * `Bearer, Bearer`. Each challenge once. A challenge starts with a scheme token followed by a space
 * or the end; a comma followed by `name=` is one of its parameters and stays with it.
 */
function distinctChallenges(header: string): string {
  const challenges = header.split(/,\s*(?=[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:\s|$))/).map((challenge) => challenge.trim()).filter(Boolean);
  return [...new Set(challenges)].join(', ');
}

/**
 * Every response leaves in the contract's envelope: successes as `{ success, data, meta }`,
 * failures (ours, joi's, hapi's own 404/413/415) as `{ success: false, error, meta }`.
 */
export const envelopePlugin: Plugin<void> = {
  name: 'shopwright-envelope',
  register(server) {
    server.ext('onPreResponse', (request, h) => {
      const response = request.response;
      if (response instanceof Error) return renderError(request, h, response);
      response.header('x-request-id', request.info.id);
      if (response.variety !== 'plain') return h.continue;
      const writable = response as { source: unknown };
      const source = writable.source;
      if (source instanceof Enveloped) {
        writable.source = successBody(source.data, source.meta);
      } else if (source !== null && typeof source === 'object' && !Buffer.isBuffer(source) && !('success' in source)) {
        writable.source = successBody(source);
      }
      return h.continue;
    });
  }
};
