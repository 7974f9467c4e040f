import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/api/openapi/build-document.js';

/**
 * Every response a test receives, held to the OpenAPI document the service publishes: its status
 * must be listed for its operation (a 5xx may fall to `default`), its content type must be one the
 * status lists, and a JSON body must match that schema (ajv, JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1). test/helpers/app.ts runs it on every `server.inject`, so a drift between what a
 * route answers and what the document says fails the test that saw it.
 *
 * Cost: the document is built once per run (else per process) and route table, each schema compiled
 * by ajv the first time a response needs it.
 */

const addFormats = createRequire(import.meta.url)('ajv-formats') as FormatsPlugin;

type Json = Record<string, any>;

interface Contract {
  document: Json;
  ajv: Ajv2020;
  /** By operation, status and media type; and by schema, which many share (every error is an ErrorResponse). */
  validators: Map<string, ValidateFunction>;
  bySchema: Map<string, ValidateFunction>;
}

const COMPONENTS_ID = 'urn:shopwright:openapi-components';
const byRoutes = new Map<string, Contract>();
const byServer = new WeakMap<Server, Contract>();
/** Each server's route table as built, before a test added any route of its own. */
const asBuilt = new WeakMap<Server, string>();

/**
 * A schema of the document as ajv takes it: references to components point at the one schema that
 * holds them all, and `x-` extensions (annotations to OpenAPI, unknown keywords to strict ajv) go.
 */
function forAjv(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forAjv);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => !key.startsWith('x-'))
      .map(([key, value]) => [key, key === '$ref' && typeof value === 'string' ? value.replace('#/components/schemas/', `${COMPONENTS_ID}#/$defs/`) : forAjv(value)])
  );
}

/** A strict ajv holding the document's components; the annotations OpenAPI 3.1 adds are known keywords. */
export function ajvFor(document: Json): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, allowUnionTypes: true });
  addFormats(ajv);
  // OpenAPI's file bodies; never in a JSON body, so any string is one.
  ajv.addFormat('binary', true);
  for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) ajv.addKeyword({ keyword });
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: forAjv(document.components?.schemas ?? {}) as Json });
  return ajv;
}

export function compileSchema(ajv: Ajv2020, schema: unknown): ValidateFunction {
  return ajv.compile(forAjv(schema) as Json);
}

/** The route table's own fingerprint: apps built alike in one process share one contract. */
const fingerprint = (server: Server) =>
  server
    .table()
    .filter((route) => route.settings.tags?.includes('api'))
    .map((route) => `${route.method} ${route.path}`)
    .join('\n');

/**
 * The document of this route table. Building it (every route's joi to JSON Schema) costs a test file
 * more CPU than most of its tests, and every file of a run builds the same one from the same code: so
 * within a run (TEST_RUN_DIR, test/setup/run-tap.ts) the first file to need it writes it there and the
 * others read it. The route table names the file; the run's code does not change under it. Only for a
 * server's routes as buildApp made them (contractOf): with routes a test added, the file builds its own.
 */
function runDocument(server: Server, routeTable: string): Json {
  const runDir = process.env.TEST_RUN_DIR;
  if (!runDir) return buildOpenApiDocument(server) as Json;
  const file = path.join(runDir, `openapi-${createHash('sha256').update(routeTable).digest('hex').slice(0, 16)}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Json;
  } catch {
    const document = buildOpenApiDocument(server) as Json;
    // Written whole, then renamed: a file reading it meanwhile finds nothing or all of it.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(document));
    renameSync(partial, file);
    return document;
  }
}

function contractOf(server: Server): Contract {
  const known = byServer.get(server);
  if (known) return known;
  const key = fingerprint(server);
  let contract = byRoutes.get(key);
  if (!contract) {
    // A route a test added may share its method and path with another file's: only the table as built is the run's.
    const document = asBuilt.get(server) === key ? runDocument(server, key) : (buildOpenApiDocument(server) as Json);
    contract = { document, ajv: ajvFor(document), validators: new Map(), bySchema: new Map() };
    byRoutes.set(key, contract);
  }
  byServer.set(server, contract);
  return contract;
}

function bodyText(response: ServerInjectResponse): string {
  const coding = String(response.headers['content-encoding'] ?? '');
  const raw = response.rawPayload;
  if (coding === 'gzip') return gunzipSync(raw).toString('utf8');
  if (coding === 'br') return brotliDecompressSync(raw).toString('utf8');
  if (coding === 'deflate') return inflateSync(raw).toString('utf8');
  return raw.toString('utf8');
}

const mediaMatches = (listed: string, actual: string) => listed === actual || (listed.endsWith('/*') && actual.startsWith(listed.slice(0, -1)));

const describeErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? [])
    .slice(0, 8)
    .map((error) => `${error.instancePath || '/'} ${error.message}${error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : ''}`)
    .join('; ');

/**
 * What is wrong with one response against the document, or null. Responses of routes outside the
 * document (pages, the console, the catch-all 404, a route a test added after the document was
 * built) are not its business.
 */
export function contractProblem(server: Server, response: ServerInjectResponse): string | null {
  const request = response.request;
  const route = request.route;
  if (!route.settings.tags?.includes('api')) return null;
  const contract = contractOf(server);
  const path = route.path.replace(/\{(\w+)\*?\w*\}/g, '{$1}');
  const operation = contract.document.paths?.[path]?.[route.method] as Json | undefined;
  if (!operation) return null;
  const where = `${request.method.toUpperCase()} ${request.path} (${route.method.toUpperCase()} ${path})`;
  const status = response.statusCode;
  const documented = operation.responses[String(status)] ?? (status >= 500 ? operation.responses.default : undefined);
  if (!documented) return `${where} answered ${status}, which the OpenAPI document does not list (it lists ${Object.keys(operation.responses).join(', ')})`;
  // A HEAD answers a GET's headers without its body: nothing more to compare.
  if (request.method === 'head') return null;
  const text = bodyText(response);
  if (!documented.content) return text === '' ? null : `${where} answered ${status} with a body, where the OpenAPI document says it has none`;
  const mediaType = String(response.headers['content-type'] ?? '').split(';')[0]!.trim();
  const listed = Object.keys(documented.content).find((type) => mediaMatches(type, mediaType));
  if (!listed) return `${where} answered ${status} as ${mediaType || 'no content type'}, where the OpenAPI document lists ${Object.keys(documented.content).join(', ')}`;
  if (!/^application\/(.+\+)?json$/.test(listed)) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${where} answered ${status} as ${mediaType} with a body that is not JSON: ${text.slice(0, 100)}`;
  }
  const key = `${route.method} ${path} ${status in operation.responses ? status : 'default'} ${listed}`;
  let validate = contract.validators.get(key);
  if (!validate) {
    const schema = documented.content[listed].schema ?? {};
    const shape = JSON.stringify(schema);
    validate = contract.bySchema.get(shape) ?? compileSchema(contract.ajv, schema);
    contract.bySchema.set(shape, validate);
    contract.validators.set(key, validate);
  }
  if (validate(body)) return null;
  return `${where} answered ${status} with a body the OpenAPI document does not allow: ${describeErrors(validate.errors)} — body: ${text.slice(0, 300)}`;
}

/**
 * Makes every `server.inject` of this server check its response against the document, rejecting
 * with what is wrong. `OPENAPI_CONTRACT=off` turns it off for a run; `OPENAPI_CONTRACT_REPORT=<file>`
 * appends each problem to that file instead of failing, to list every drift of a run at once.
 */
export function checkResponsesAgainstDocument(server: Server): void {
  if (process.env.OPENAPI_CONTRACT === 'off') return;
  asBuilt.set(server, fingerprint(server));
  const report = process.env.OPENAPI_CONTRACT_REPORT;
  const inject = server.inject.bind(server);
  server.inject = (async (options: Parameters<Server['inject']>[0]) => {
    const response = await inject(options);
    const problem = contractProblem(server, response);
    if (problem && report) appendFileSync(report, `${problem}\n`);
    else if (problem) throw new Error(`OpenAPI contract: ${problem}`);
    return response;
  }) as Server['inject'];
}
