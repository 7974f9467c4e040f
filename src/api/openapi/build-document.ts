import type { Server } from '@hapi/hapi';
import type { Schema } from 'joi';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { apiKeyScopesSummary } from '../api-key-scopes.js';
import { NO_BODY } from '../route-helpers.js';
import { operationIdFor } from './operation-id.js';

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
    openapi?: { success?: NonEnvelopeSuccess; errors?: number[]; requestBody?: DeclaredRequestBody };
  }
}

/**
 * The body of a route whose payload hapi hands over unparsed or as files (CSV and multipart
 * uploads), which no joi schema describes: `plugins: { openapi: { requestBody } }` in its options.
 */
export interface DeclaredRequestBody {
  description: string;
  content: Record<string, { schema: object; encoding?: Record<string, { contentType: string }> }>;
}

type Describable = Pick<Schema, 'describe'>;
type Json = Record<string, unknown>;

// joi-to-json is CommonJS with a function export that its typings describe as a namespace.
const joiToJson = createRequire(import.meta.url)('joi-to-json') as (schema: Describable, mode: 'open-api') => Json;

/** Marks joi-to-json copies through (it keeps `x-` metas) for `named` to act on. */
const COMPONENT = 'x-component';
const MAP_VALUES = 'x-map-values';

/**
 * A joi description with two things joi-to-json cannot express marked for `named`: a `.label()`
 * (the resource's name) and a map, `Joi.object().pattern(Joi.string(), value)`, whose values have a
 * schema but whose keys are free (joi-to-json would publish an object that allows no keys).
 */
function marked(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(marked);
  if (!node || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(withoutWhens(node as Json)).map(([key, value]) => [key, marked(value)])) as Json;
  if (typeof copy.type !== 'string') return copy;
  const metas = [...((copy.metas as Json[] | undefined) ?? [])];
  const label = (copy.flags as Json | undefined)?.label;
  if (typeof label === 'string') metas.push({ [COMPONENT]: label });
  const patterns = copy.patterns as Array<{ schema?: unknown; regex?: unknown; rule: unknown }> | undefined;
  if (copy.type === 'object' && patterns?.length === 1 && patterns[0]!.schema && patterns[0]!.regex === undefined) {
    metas.push({ [MAP_VALUES]: patterns[0]!.rule });
    delete copy.patterns;
  }
  if (metas.length) copy.metas = metas;
  return copy;
}

interface WhenDescription {
  then?: Json;
  otherwise?: Json;
  switch?: Array<{ then?: Json; otherwise?: Json }>;
}

/**
 * A joi description without its `.when()` rules, which joi-to-json publishes as a value of any type.
 * A rule that depends on a sibling (discount `value` by `type`, a variant's `price` required only
 * without an `id`) becomes the types the value may take: the base schema when it has a type (the
 * branches only add presence or rules), else the typed branches (one, or `anyOf` several). Branches
 * that only require or strip the value say nothing about its type; a conditional `required` cannot be
 * said in OpenAPI, so the value is documented as optional and its description says when it is needed.
 */
function withoutWhens(node: Json): Json {
  const whens = node.whens as WhenDescription[] | undefined;
  if (typeof node.type !== 'string' || !whens?.length) return node;
  const { whens: _whens, ...base } = node;
  if (base.type !== 'any') return base;
  const typed = whens
    .flatMap((when) => [when.then, when.otherwise, ...(when.switch ?? []).flatMap((branch) => [branch.then, branch.otherwise])])
    .filter((branch): branch is Json => Boolean(branch) && branch!.type !== 'any')
    .map((branch) => ({ ...branch, flags: { ...(branch.flags as Json | undefined), presence: undefined } }));
  if (!typed.length) return base;
  const flags = { ...(base.flags as Json | undefined), presence: undefined };
  const allow = base.allow ? { allow: base.allow } : {};
  if (typed.length === 1) return { ...typed[0], flags: { ...typed[0]!.flags, ...flags }, ...allow };
  return { type: 'alternatives', flags, matches: typed.map((schema) => ({ schema })), ...allow };
}

/** The type a nullable reference must carry: OpenAPI 3.0 ignores `nullable` beside no `type`. */
function typeOfComponent(name: string, shape: Json): string {
  if (typeof shape.type === 'string') return shape.type;
  throw new Error(`OpenAPI: ${name} is used as nullable but has no type for nullable to apply to`);
}

/**
 * The OpenAPI schema of a joi schema. Every labelled schema becomes a named component (`$ref`; a
 * nullable use is `type` + `allOf` + `nullable`, the OpenAPI 3.0 idiom), so a client generator makes one type
 * per resource, named as the label says. Two different schemas under one label are a mistake a
 * generated client would hide, so they fail the document.
 */
function toOpenApi(schema: Describable, components: Record<string, Json>): Json {
  const named = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(named);
    if (!node || typeof node !== 'object') return node;
    const { [COMPONENT]: name, [MAP_VALUES]: mapValues, ...rest } = node as Json;
    const out = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, named(value)])) as Json;
    if (mapValues !== undefined) {
      out.additionalProperties = named(joiToJson({ describe: () => mapValues } as unknown as Describable, 'open-api'));
      if (isDeepStrictEqual(out.properties, {})) delete out.properties;
    }
    if (typeof name !== 'string') return out;
    const { nullable, ...shape } = out;
    const known = components[name];
    if (known && !isDeepStrictEqual(known, shape)) {
      throw new Error(`OpenAPI: two different schemas are labelled ${name}; give them different labels or share one schema`);
    }
    components[name] = shape;
    const ref = { $ref: `#/components/schemas/${name}` };
    return nullable ? { type: typeOfComponent(name, shape), allOf: [ref], nullable: true } : ref;
  };
  return named(joiToJson({ describe: () => marked(schema.describe()) } as unknown as Describable, 'open-api')) as Json;
}

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
  url_taken: 409,
  webhook_limit_reached: 409,
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
 * The success statuses of a route: those its joi response schemas declare (`response.status`) when
 * it has them (a PUT may answer 201 created or 200 updated), else the status its handler sets
 * (`.code(201)` / `.code(202)`), else 200.
 */
function successStatuses(settings: { response?: unknown; handler?: unknown }): number[] {
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
function successSchema(settings: { response?: unknown }, status: number, components: Record<string, Json>) {
  const response = settings.response as RouteResponseSettings | undefined;
  const schema = response?.status?.[status] ?? response?.schema;
  if (!isJoi(schema)) return { $ref: '#/components/schemas/SuccessEnvelope' };
  return {
    type: 'object',
    required: ['success', 'data', 'meta'],
    properties: { success: { type: 'boolean', enum: [true] }, data: toOpenApi(schema, components), meta: { type: 'object' } }
  };
}

/** The failures a route can answer, from what it checks. */
function errorStatuses(strategy: string | undefined, tenancy: unknown, hasInput: boolean, hasParams: boolean, jsonBody: boolean, declared: number[] = []): number[] {
  const statuses = new Set<number>([503, ...declared]);
  if (hasInput) statuses.add(422);
  // Malformed JSON, a body over the limit, another content type.
  if (jsonBody) [400, 413, 415].forEach((code) => statuses.add(code));
  if (hasParams) statuses.add(404);
  if (strategy) statuses.add(401);
  if (strategy === 'storefront' || strategy === 'api-key') statuses.add(429);
  if (tenancy) {
    statuses.add(400);
    statuses.add(403);
  }
  return [...statuses].sort();
}

/** Content types a route's joi body is documented under: JSON, and a form post where the route takes one. */
function bodyContentTypes(settings: { payload?: unknown }): string[] {
  const allow = (settings.payload as { allow?: string | string[] } | undefined)?.allow;
  const allowed = allow === undefined ? ['application/json'] : [allow].flat();
  const types = ['application/json', 'application/x-www-form-urlencoded'].filter((type) => allowed.includes(type));
  return types.length ? types : ['application/json'];
}

function securityFor(auth: unknown, tenancy: unknown, apiKeyScope: string | null | undefined) {
  if (auth === 'api-key') return apiKeyScope ? [{ bearerAuth: [], storeId: [] }, { adminApiKey: [] }] : [{ bearerAuth: [], storeId: [] }];
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
  const components: Record<string, Json> = {};
  const operationIds = new Map<string, string>();
  for (const route of server.table()) {
    const settings = route.settings;
    if (!settings.tags?.includes('api')) continue;
    const path = route.path.replace(/\{(\w+)\*?\w*\}/g, '{$1}');
    const validate = settings.validate ?? {};
    const auth = (settings.auth as { strategies?: string[] } | false | undefined) || undefined;
    const strategy = auth?.strategies?.[0];
    const operation: Record<string, unknown> = {
      operationId: operationIdFor(route.method, route.path, settings.id),
      summary: settings.description ?? '',
      tags: settings.tags.filter((t) => !['api', 'admin', 'storefront'].includes(t)),
      parameters: [...parameters(validate.params, 'path', components), ...parameters(validate.query, 'query', components)],
      security: securityFor(strategy, settings.plugins?.tenancy, settings.plugins?.apiKey?.scope),
      // OpenAPI 3.0 lists scopes only for OAuth; the scope an admin API key needs is this extension.
      ...(settings.plugins?.apiKey ? { 'x-api-key-scope': settings.plugins.apiKey.scope } : {}),
      responses: (() => {
        const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } };
        const responses: Record<string, object> = {};
        const custom = settings.plugins?.openapi?.success;
        if (custom) {
          const { status, content, ...rest } = custom;
          responses[String(status)] = content ? { ...rest, content } : rest;
        }
        for (const status of custom ? [] : successStatuses(settings as { response?: unknown; handler?: unknown })) {
          responses[String(status)] = {
            description: STATUS_TEXT[status] ?? 'Success',
            content: { 'application/json': { schema: successSchema(settings, status, components) } }
          };
        }
        const hasInput = isJoi(validate.payload) || isJoi(validate.query) || isJoi(validate.params);
        const declared = settings.plugins?.openapi?.errors;
        const jsonBody = isJoi(validate.payload) && validate.payload !== NO_BODY;
        for (const code of errorStatuses(strategy, settings.plugins?.tenancy, hasInput, /\{/.test(route.path), jsonBody, declared)) {
          responses[String(code)] = { description: STATUS_TEXT[code] ?? 'Error', ...error };
        }
        responses.default = { description: 'Error (see ErrorCode for every code)', ...error };
        return responses;
      })()
    };
    const declaredBody = settings.plugins?.openapi?.requestBody;
    if (declaredBody) {
      operation.requestBody = { required: true, ...declaredBody };
    } else if (isJoi(validate.payload) && validate.payload !== NO_BODY) {
      const schema = toOpenApi(validate.payload, components);
      operation.requestBody = { required: true, content: Object.fromEntries(bodyContentTypes(settings).map((type) => [type, { schema }])) };
    }
    const taken = operationIds.get(operation.operationId as string);
    if (taken) throw new Error(`OpenAPI: ${taken} and ${route.method.toUpperCase()} ${route.path} have one operationId; give one of them an options.id`);
    operationIds.set(operation.operationId as string, `${route.method.toUpperCase()} ${route.path}`);
    paths[path] ??= {};
    paths[path]![route.method] = operation;
  }
  for (const name of ['ErrorResponse', 'SuccessEnvelope', 'ErrorCode']) {
    if (components[name]) throw new Error(`OpenAPI: the label ${name} is taken by the envelope's own schemas`);
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Shopwright API', version: '1.0.0', description: 'Multi-tenant online-store service. Every response uses the { success, data, meta } envelope.' },
    servers: [{ url: '/' }],
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
