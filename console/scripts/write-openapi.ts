/**
 * Writes the service's OpenAPI document (built from the route table, as GET /api/v1/openapi.json
 * serves it) to console/openapi.json, for openapi-typescript to turn into the console's types. No
 * database or Redis is needed: the routes are registered, never started.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../../src/api/openapi/build-document.js';
import { createServer } from '../../src/api/server.js';
import { loadConfig } from '../../src/config.js';
import { closeContext, createContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../generated/openapi.json');
const ctx = createContext(loadConfig({ ...process.env, LOG_LEVEL: 'silent', NODE_ENV: 'development' }), { modules: MODULES });
try {
  const server = await createServer(ctx, { port: 0 });
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, JSON.stringify(buildOpenApiDocument(server), null, 1));
} finally {
  await closeContext(ctx);
}
