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
        code: { type: 'string' },
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
      responses: {
        default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } },
        '200': { description: 'Success', content: { 'application/json': { schema: { $ref: '#/components/schemas/SuccessEnvelope' } } } }
      }
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
      schemas: { ErrorResponse: ERROR_RESPONSE, SuccessEnvelope: SUCCESS_RESPONSE }
    }
  };
}
