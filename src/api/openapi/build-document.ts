import type { RequestRoute, Server } from '@hapi/hapi';
import type { Schema } from 'joi';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { apiKeyScopesSummary } from '../api-key-scopes.js';
import { NO_BODY } from '../route-helpers.js';
import { isCacheableStorefrontGet } from '../storefront/http-cache.js';
import { isJoi, toOpenApi, type Json } from './joi-schema.js';
import { operationIdFor } from './operation-id.js';
import { ERROR_CODES, ERROR_RESPONSE, errorStatuses, STATUS_TEXT, SUCCESS_RESPONSE, successSchema, successStatuses } from './responses.js';
import { AUDIENCE_TAGS, TAG_DESCRIPTIONS } from './tags.js';

/**
 * What a route answers on success when that is not the JSON envelope (a redirect, a file, this
 * document itself): `plugins: { openapi: { success } }` in its options. `content: null` is no body.
 */
export interface NonEnvelopeSuccess {
  status: number;
  description: string;
  content: Record<string, { schema: object }> | null;
  headers?: Record<string, { description: string; schema: object }>;
}

declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    /**
     * `errors`: the statuses a route's business rules answer besides those the document derives from
     * its auth, validation and path parameters (a 409 on a taken key, a 404 for an id in the body).
     */
    openapi?: {
      success?: NonEnvelopeSuccess;
      errors?: number[];
      requestBody?: DeclaredRequestBody;
      /** Headers the route reads (a receiver's signature), as OpenAPI header parameters. */
      headers?: HeaderParameter[];
      /** The route answers a browser (Accept: text/html) with an HTML page, success or failure. */
      html?: boolean;
      /** The route answers 304 to an `If-None-Match` naming its ETag (cacheable storefront GETs say so themselves). */
      notModified?: boolean;
    };
  }
}

/**
 * The body of a route whose payload hapi hands over unparsed or as files (CSV and multipart
 * uploads), which no joi schema describes: `plugins: { openapi: { requestBody } }` in its options.
 */
export interface DeclaredRequestBody {
  description: string;
  /** A schema is JSON Schema, or joi (the one the route's service validates the body with). */
  content: Record<string, { schema: object; encoding?: Record<string, { contentType: string }> }>;
}

export interface HeaderParameter {
  name: string;
  in: 'header';
  required: boolean;
  description: string;
  schema: object;
}

function parameters(schema: unknown, location: 'path' | 'query', components: Record<string, Json>) {
  if (!isJoi(schema)) return [];
  const json = toOpenApi(schema, components) as { properties?: Record<string, object>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (json.required ?? []).includes(name),
    schema: property
  }));
}

/** Content types a route's joi body is documented under: those of JSON, a form and multipart the route takes. */
function bodyContent(settings: { payload?: unknown }, schema: Json): Record<string, { schema: object }> {
  const allow = (settings.payload as { allow?: string | string[] } | undefined)?.allow;
  const allowed = allow === undefined ? ['application/json'] : [allow].flat();
  const types = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'].filter((type) => allowed.includes(type));
  const content = Object.fromEntries((types.length ? types : ['application/json']).map((type) => [type, { schema }]));
  return allowed.includes('text/plain') ? { ...content, 'text/plain': { schema: { type: 'string' } } } : content;
}

/**
 * An operation's `summary` (a title: tools list it beside the path) and `description` (the whole
 * `options.description`): the summary is the description when short, else its first clause.
 */
function summaryOf(description: string): string {
  if (description.length <= 80) return description;
  let depth = 0;
  for (let i = 0; i < Math.min(description.length, 80); i++) {
    const char = description[i]!;
    if (i >= 15 && depth === 0 && /^(?:[.;:,] | \(| - | \{)/.test(description.slice(i, i + 3))) return description.slice(0, i);
    if ('({['.includes(char)) depth += 1;
    else if (')}]'.includes(char)) depth = Math.max(0, depth - 1);
  }
  return `${description.slice(0, 79).replace(/\s+\S*$/, '')}…`;
}

function securityFor(auth: unknown, tenancy: unknown, apiKeyScope: string | null | undefined) {
  if (auth === 'api-key') return apiKeyScope ? [{ bearerAuth: [], storeId: [] }, { adminApiKey: [] }] : [{ bearerAuth: [], storeId: [] }];
  if (auth === 'admin') return tenancy ? [{ bearerAuth: [], storeId: [] }] : [{ bearerAuth: [] }];
  if (auth === 'storefront') return [{ storefrontToken: [] }];
  return [];
}

/** A route's HTML pages for a browser (`plugins.openapi.html`), documented beside its JSON. */
const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };

const errorResponse = (status: number, html: boolean) => ({
  description: STATUS_TEXT[status] ?? 'Error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } }, ...(html ? HTML_PAGE : {}) }
});

/** The responses of one route: its successes (from its response schemas), then its failures. */
function responsesOf(route: RequestRoute, strategy: string | undefined, components: Record<string, Json>): Record<string, object> {
  const settings = route.settings;
  const html = settings.plugins?.openapi?.html === true;
  const responses: Record<string, object> = {};
  const custom = settings.plugins?.openapi?.success;
  if (custom) {
    const { status, content, ...rest } = custom;
    responses[String(status)] = content ? { ...rest, content } : rest;
  }
  for (const status of custom ? [] : successStatuses(settings as { response?: unknown; handler?: unknown })) {
    responses[String(status)] = {
      description: STATUS_TEXT[status] ?? 'Success',
      content: { 'application/json': { schema: successSchema(settings, status, components) }, ...(html ? HTML_PAGE : {}) }
    };
  }
  if (settings.plugins?.openapi?.notModified || isCacheableStorefrontGet(settings.handler)) {
    responses['304'] = { description: 'Not modified: If-None-Match names the current ETag (no body)' };
  }
  const sources = {
    method: route.method,
    strategy,
    tenancy: settings.plugins?.tenancy,
    hasParams: /\{/.test(route.path),
    declared: settings.plugins?.openapi?.errors
  };
  for (const code of errorStatuses(sources)) responses[String(code)] = errorResponse(code, html);
  // What no route lists: a fault of the service (500 internal_error).
  responses.default = { ...errorResponse(500, false), description: 'Unexpected error (see ErrorCode for every code)' };
  return responses;
}

function requestBodyOf(route: RequestRoute, components: Record<string, Json>) {
  const settings = route.settings;
  const declared = settings.plugins?.openapi?.requestBody;
  if (declared) {
    const content = Object.fromEntries(
      Object.entries(declared.content).map(([type, media]) => [type, { ...media, schema: isJoi(media.schema) ? toOpenApi(media.schema, components) : media.schema }])
    );
    return { required: true, ...declared, content };
  }
  const payload = settings.validate?.payload;
  if (!isJoi(payload) || payload === NO_BODY) return undefined;
  // A body schema that takes null takes no body at all (hapi validates an empty body as null).
  return { required: payload.validate(null).error !== undefined, content: bodyContent(settings, toOpenApi(payload, components)) };
}

/** Whether a schema (the whole document, or part of it) refers to a component. */
const refersTo = (node: unknown, name: string) => JSON.stringify(node).includes(`"#/components/schemas/${name}"`);

/**
 * OpenAPI 3.1 from the route table: paths, parameters and request bodies come from each route's joi
 * schemas, so the document cannot drift from what the server validates.
 */
export function buildOpenApiDocument(server: Server) {
  const paths: Record<string, Record<string, object>> = {};
  const components: Record<string, Json> = {};
  const operationIds = new Map<string, string>();
  const tags = new Set<string>();
  for (const route of server.table()) {
    const settings = route.settings;
    if (!settings.tags?.includes('api')) continue;
    const path = route.path.replace(/\{(\w+)\*?\w*\}/g, '{$1}');
    const validate = settings.validate ?? {};
    const auth = (settings.auth as { strategies?: string[] } | false | undefined) || undefined;
    const strategy = auth?.strategies?.[0];
    const description = settings.description ?? '';
    const operation: Record<string, unknown> = {
      operationId: operationIdFor(route.method, route.path, settings.id),
      summary: summaryOf(description),
      description,
      tags: settings.tags.filter((t) => !AUDIENCE_TAGS.includes(t)),
      parameters: [
        ...parameters(validate.params, 'path', components),
        ...parameters(validate.query, 'query', components),
        ...(settings.plugins?.openapi?.headers ?? [])
      ],
      security: securityFor(strategy, settings.plugins?.tenancy, settings.plugins?.apiKey?.scope),
      // OpenAPI lists scopes only for OAuth; the scope an admin API key needs is this extension.
      ...(settings.plugins?.apiKey ? { 'x-api-key-scope': settings.plugins.apiKey.scope } : {}),
      responses: responsesOf(route, strategy, components)
    };
    const requestBody = requestBodyOf(route, components);
    if (requestBody) operation.requestBody = requestBody;
    (operation.tags as string[]).forEach((tag) => tags.add(tag));
    const taken = operationIds.get(operation.operationId as string);
    if (taken) throw new Error(`OpenAPI: ${taken} and ${route.method.toUpperCase()} ${route.path} have one operationId; give one of them an options.id`);
    operationIds.set(operation.operationId as string, `${route.method.toUpperCase()} ${route.path}`);
    paths[path] ??= {};
    paths[path]![route.method] = operation;
  }
  for (const name of ['ErrorResponse', 'SuccessEnvelope', 'ErrorCode']) {
    if (components[name]) throw new Error(`OpenAPI: the label ${name} is taken by the envelope's own schemas`);
  }
  // The untyped envelope is for a route without a response schema; listed only when one uses it.
  const envelope = refersTo(paths, 'SuccessEnvelope') ? { SuccessEnvelope: SUCCESS_RESPONSE } : {};
  return {
    openapi: '3.1.0',
    info: { title: 'Shopwright API', version: '1.0.0', description: 'Multi-tenant online-store service. Every response uses the { success, data, meta } envelope.' },
    servers: [{ url: '/' }],
    tags: [...tags].sort().map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        adminApiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'swk_…',
          description:
            'An admin API key (POST /admin/store/api-keys) as `Authorization: Bearer swk_…`, no x-store-id needed. Each operation names the scope it needs in `x-api-key-scope` (null: keys refused; any other scope: 403 insufficient_scope). ' +
            apiKeyScopesSummary()
        },
        storeId: { type: 'apiKey', in: 'header', name: 'x-store-id' },
        storefrontToken: { type: 'apiKey', in: 'header', name: 'x-storefront-token' }
      },
      schemas: {
        ...components,
        ErrorResponse: ERROR_RESPONSE,
        ...envelope,
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
