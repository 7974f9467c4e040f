import { timingSafeEqual, createHash } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HapiAdapter } from '@bull-board/hapi';
import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { unauthenticated } from '../../errors.js';
import { QUEUE_NAMES } from '../../jobs/queues.js';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';
const REALM = 'Basic realm="Shopwright queues", charset="UTF-8"';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison of the Basic credentials with the configured ones. */
export function basicCredentialsMatch(header: string | undefined, user: string, password: string): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const userOk = timingSafeEqual(digest(decoded.slice(0, colon)), digest(user));
  const passwordOk = timingSafeEqual(digest(decoded.slice(colon + 1)), digest(password));
  return userOk && passwordOk;
}

/**
 * bull-board for platform operators at /admin/queues (outside /api/v1: it is a UI, not the API),
 * listing every queue, with retry and clean. Behind Basic auth from QUEUE_DASHBOARD_USER and
 * QUEUE_DASHBOARD_PASSWORD; with no password configured it is not mounted at all.
 */
export const queueDashboardPlugin: Plugin<void> = {
  name: 'shopwright-queue-dashboard',
  async register(server) {
    const ctx = server.app.ctx;
    const { queueDashboardUser: user, queueDashboardPassword: password } = ctx.config;
    if (!password) {
      ctx.log.info('queue dashboard not mounted: QUEUE_DASHBOARD_PASSWORD is not set');
      return;
    }
    server.auth.scheme('queue-dashboard-basic', () => ({
      authenticate(request: Request, h: ResponseToolkit) {
        if (!basicCredentialsMatch(request.headers.authorization as string | undefined, user, password)) {
          throw unauthenticated('Queue dashboard credentials required', REALM);
        }
        return h.authenticated({ credentials: { user } });
      }
    }));
    server.auth.strategy('queue-dashboard', 'queue-dashboard-basic');

    const serverAdapter = new HapiAdapter();
    serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
    createBullBoard({
      queues: QUEUE_NAMES.map((name) => new BullMQAdapter(ctx.queues.get(name))),
      serverAdapter,
      options: { uiConfig: { boardTitle: 'Shopwright queues' } }
    });

    // bull-board's own JSON must reach its UI as it is, not inside the API envelope: serialised
    // here (a string), which the envelope leaves alone.
    server.ext(
      'onPreResponse',
      (request, h) => {
        const response = request.response;
        if (!request.path.startsWith(`${QUEUE_DASHBOARD_PATH}/api/`) || response instanceof Error || response.variety !== 'plain') return h.continue;
        const source = (response as { source: unknown }).source;
        if (source !== null && typeof source === 'object' && !Buffer.isBuffer(source)) {
          (response as { source: unknown }).source = JSON.stringify(source);
          response.type('application/json; charset=utf-8');
        }
        return h.continue;
      },
      { before: ['shopwright-envelope'] }
    );

    // The plugin's options become the options of each of its routes: every one behind the Basic auth.
    await server.register({ plugin: serverAdapter.registerPlugin(), options: { auth: 'queue-dashboard' } }, { routes: { prefix: QUEUE_DASHBOARD_PATH } });
  }
};
