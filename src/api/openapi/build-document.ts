import type { Server } from '@hapi/hapi';
import type { Schema } from 'joi';
import { createRequire } from 'node:module';

// joi-to-json is CommonJS with a function export that its typings describe as a namespace.
const parse = createRequire(import.meta.url)('joi-to-json') as (schema: Schema, mode: 'open-api') => object;

const ERROR_RESPONSE = {
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

const SUCCESS_RESPONSE = {
  type: 'object',
  required: ['success', 'data', 'meta'],
  properties: { success: { type: 'boolean', enum: [true] }, data: { type: 'object' }, meta: { type: 'object' } }
};

function isJoi(value: unknown): value is Schema {
  return Boolean(value && typeof value === 'object' && 'describe' in value && '$_root' in value);
}

function parameters(schema: unknown, location: 'path' | 'query') {
  if (!isJoi(schema)) return [];
  const json = parse(schema, 'open-api') as { properties?: Record<string, object>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (json.required ?? []).includes(name),
    schema: property
  }));
}

/** The contract's error codes (API.md, Conventions), listed in the document so clients can switch on them. */
export const ERROR_CODES: Record<string, number> = {
  bad_request: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  forbidden: 403,
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
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  invalid_token: 422,
  discount_not_applicable: 422,
  review_not_verified: 422,
  rate_limited: 429,
  internal_error: 500,
  upstream_failed: 502,
  service_unavailable: 503
};

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted (work continues in a job)', 204: 'No content', 400: 'Bad request', 401: 'Unauthenticated',
  403: 'Forbidden', 404: 'Not found', 409: 'Conflict', 413: 'Payload too large', 415: 'Unsupported media type',
  422: 'Validation failed', 429: 'Rate limited', 503: 'Service unavailable'
};

interface RouteResponseSettings {
  status?: Record<string, unknown>;
  schema?: unknown;
}

/**
 * The success status of a route: from its joi response schemas (`response.status`) when it has them,
 * else the status its handler sets (`.code(201)` / `.code(202)`), else 200.
 */
function successStatus(settings: { response?: unknown; handler?: unknown }): number {
  const declared = Object.keys((settings.response as RouteResponseSettings | undefined)?.status ?? {})
    .map(Number)
    .filter((code) => code >= 200 && code < 300);
  if (declared.length) return Math.min(...declared);
  const source = typeof settings.handler === 'function' ? settings.handler.toString() : '';
  const coded = /\.code\((20[0-9])\)/.exec(source);
  return coded ? Number(coded[1]) : 200;
}

/** The envelope around the route's joi response schema for that status (or any object). */
function successSchema(settings: { response?: unknown }, status: number) {
  const response = settings.response as RouteResponseSettings | undefined;
  const schema = response?.status?.[status] ?? response?.schema;
  if (!isJoi(schema)) return { $ref: '#/components/schemas/SuccessEnvelope' };
  return {
    type: 'object',
    required: ['success', 'data', 'meta'],
    properties: { success: { type: 'boolean', enum: [true] }, data: parse(schema, 'open-api'), meta: { type: 'object' } }
  };
}

/** The failures a route can answer, from what it checks. */
function errorStatuses(strategy: string | undefined, tenancy: unknown, hasInput: boolean, hasParams: boolean): number[] {
  const statuses = new Set<number>([503]);
  if (hasInput) statuses.add(422);
  if (hasParams) statuses.add(404);
  if (strategy) statuses.add(401);
  if (strategy === 'storefront') statuses.add(429);
  if (tenancy) {
    statuses.add(400);
    statuses.add(403);
  }
  return [...statuses].sort();
}

function securityFor(auth: unknown, tenancy: unknown) {
  if (auth === 'admin') return tenancy ? [{ bearerAuth: [], storeId: [] }] : [{ bearerAuth: [] }];
  if (auth === 'storefront') return [{ storefrontToken: [] }];
  return [];
}

/**
 * OpenAPI 3 from the route table: paths, parameters and request bodies come from each route's joi
 * schemas, so the document cannot drift from what the server validates.
 */
export function buildOpenApiDocument(server: Server) {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of server.table()) {
    const settings = route.settings;
    if (!settings.tags?.includes('api')) continue;
    const path = route.path.replace(/\{(\w+)\*?\w*\}/g, '{$1}');
    const validate = settings.validate ?? {};
    const auth = (settings.auth as { strategies?: string[] } | false | undefined) || undefined;
    const strategy = auth?.strategies?.[0];
    const operation: Record<string, unknown> = {
      summary: settings.description ?? '',
      tags: settings.tags.filter((t) => !['api', 'admin', 'storefront'].includes(t)),
      parameters: [...parameters(validate.params, 'path'), ...parameters(validate.query, 'query')],
      security: securityFor(strategy, settings.plugins?.tenancy),
      responses: (() => {
        const status = successStatus(settings as { response?: unknown; handler?: unknown });
        const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } };
        const responses: Record<string, object> = {
          [String(status)]: { description: STATUS_TEXT[status] ?? 'Success', content: { 'application/json': { schema: successSchema(settings, status) } } }
        };
        const hasInput = isJoi(validate.payload) || isJoi(validate.query) || isJoi(validate.params);
        for (const code of errorStatuses(strategy, settings.plugins?.tenancy, hasInput, /\{/.test(route.path))) {
          responses[String(code)] = { description: STATUS_TEXT[code] ?? 'Error', ...error };
        }
        responses.default = { description: 'Error (see ErrorCode for every code)', ...error };
        return responses;
      })()
    };
    if (isJoi(validate.payload)) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: parse(validate.payload, 'open-api') } } };
    }
    paths[path] ??= {};
    paths[path]![route.method] = operation;
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Shopwright API', version: '1.0.0', description: 'Multi-tenant online-store service. Every response uses the { success, data, meta } envelope.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        storeId: { type: 'apiKey', in: 'header', name: 'x-store-id' },
        storefrontToken: { type: 'apiKey', in: 'header', name: 'x-storefront-token' }
      },
      schemas: {
        ErrorResponse: ERROR_RESPONSE,
        SuccessEnvelope: SUCCESS_RESPONSE,
        ErrorCode: {
          type: 'string',
          enum: Object.keys(ERROR_CODES),
          description: Object.entries(ERROR_CODES)
            .map(([code, status]) => `${code} (${status})`)
            .join(', ')
        }
      }
    }
  };
}
