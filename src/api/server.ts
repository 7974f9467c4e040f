import Hapi, { type Server } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../context.js';
import { registerEncoders, COMPRESSION_MIN_BYTES, ROUTE_COMPRESSION } from './compression.js';
import { accountPageRoutes } from './account-pages/index.js';
import { consoleRoutes } from './console/routes.js';
import { installEventStreams } from './event-stream.js';
import { authPlugin } from './plugins/auth.js';
import { envelopePlugin } from './plugins/envelope.js';
import { notFoundPlugin } from './plugins/not-found.js';
import { queueDashboardPlugin } from './plugins/queue-dashboard.js';
import { uploadCleanupPlugin, uploadDirectory } from './uploads.js';
import { responseContractPlugin } from './plugins/response-contract.js';
import { requestLogPlugin } from './plugins/request-log.js';
import { failValidation, inputGuardPlugin, VALIDATION_OPTIONS } from './plugins/validation.js';
import { refuseUndeclaredBody } from './route-helpers.js';
import { ROUTE_GROUPS } from './routes.js';

declare module '@hapi/hapi' {
  interface ServerApplicationState {
    ctx: AppContext;
  }
}

export const API_PREFIX = '/api/v1';
export const JSON_BODY_LIMIT = 1024 * 1024;

export async function createServer(ctx: AppContext, options: { port?: number; host?: string } = {}): Promise<Server> {
  const uploads = await uploadDirectory(ctx.config.uploadTmpDir);
  const server = Hapi.server({
    port: options.port ?? ctx.config.port,
    host: options.host ?? ctx.config.host,
    router: { stripTrailingSlash: true },
    compression: { minBytes: COMPRESSION_MIN_BYTES },
    // Server-sent events are never compressed: a compressor holds events back until its buffer fills.
    mime: { override: { 'text/event-stream': { source: 'iana', compressible: false } } },
    routes: {
      validate: { failAction: failValidation, options: VALIDATION_OPTIONS },
      // hapi sets no server-side timeout by default; the socket timeout must exceed it.
      timeout: { server: 25_000, socket: 30_000 },
      // JSON only unless a route says otherwise (CSV and multipart uploads, one-click unsubscribe).
      payload: { maxBytes: JSON_BODY_LIMIT, timeout: 10_000, protoAction: 'error', allow: 'application/json', uploads: uploads.dir },
      // Routes declare joi data schemas in `response.status` for the OpenAPI document; hapi never
      // runs them (sample 0): the response-contract plugin checks them when VALIDATE_RESPONSES is on.
      response: { emptyStatusCode: 204, sample: 0 },
      compression: ROUTE_COMPRESSION,
      security: { noOpen: true, noSniff: true, xframe: true, referrer: 'no-referrer', hsts: ctx.config.env === 'production' }
    },
    debug: false
  });
  registerEncoders(server);
  uploads.attach(server);
  server.app.ctx = ctx;
  installEventStreams(server);
  server.validator(Joi);

  await server.register([responseContractPlugin, envelopePlugin, requestLogPlugin, authPlugin, inputGuardPlugin, uploadCleanupPlugin]);
  await server.register(
    {
      name: 'shopwright-routes',
      register(routes) {
        for (const group of ROUTE_GROUPS) routes.route(group.map(refuseUndeclaredBody));
      }
    },
    { routes: { prefix: API_PREFIX } }
  );
  // The pages emailed links open (password reset, invites) live at the root, as the links say.
  server.route(accountPageRoutes);
  // The operator console (a single-page app built into console/dist) at /app.
  server.route(consoleRoutes);
  await server.register(queueDashboardPlugin);
  await server.register(notFoundPlugin);
  return server;
}
