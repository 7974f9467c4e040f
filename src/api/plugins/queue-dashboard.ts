import { timingSafeEqual, createHash } from 'node:crypto';
import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { unauthenticated } from '../../errors.js';
import { QUEUE_NAMES } from '../../jobs/queues.js';
import { assertCredentialFailuresUnderLimit, countCredentialFailure } from '../../services/accounts/index.js';
import { clientIp } from '../client-ip.js';
import { QUEUE_DASHBOARD_CSP, withoutExternalReferences } from './queue-dashboard-page.js';
import { redactDashboardJson } from './queue-dashboard-redaction.js';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';
const REALM = 'Basic realm="Shopwright queues", charset="UTF-8"';

const RATE_LIMIT_ACTION = 'queue-dashboard';

const digest = (value: string) => createHash('sha256').update(value).digest();

const isDashboardPath = (path: string) => path === QUEUE_DASHBOARD_PATH || path.startsWith(`${QUEUE_DASHBOARD_PATH}/`);

function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Constant-time comparison of the Basic credentials with the configured ones. */
export function basicCredentialsMatch(header: string | undefined, user: string, password: string): boolean {
  const presented = basicCredentials(header);
  if (!presented) return false;
  const userOk = timingSafeEqual(digest(presented.user), digest(user));
  const passwordOk = timingSafeEqual(digest(presented.password), digest(password));
  return userOk && passwordOk;
}

/** The user name a Basic header presents, hashed (it keys rate limits, and a caller chooses its length). */
function presentedUser(header: string | undefined): string | undefined {
  const presented = basicCredentials(header);
  return presented ? digest(presented.user).toString('hex').slice(0, 32) : undefined;
}

/**
 * bull-board for platform operators at /admin/queues (outside /api/v1: it is a UI, not the API),
 * listing every queue, with retry and clean. Behind Basic auth from QUEUE_DASHBOARD_USER and
 * QUEUE_DASHBOARD_PASSWORD, with the login's brute-force limits on its failures (auth-limits.ts);
 * with no password configured it is not mounted at all. Its JSON shows no addresses or personal
 * fields (queue-dashboard-redaction.ts) and its page loads nothing from elsewhere (queue-dashboard-page.ts).
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
    // Loaded only when mounted: bull-board is ~60 modules that every other process start (and every
    // test file's app) would load for nothing.
    const [{ createBullBoard }, { BullMQAdapter }, { HapiAdapter }] = await Promise.all([
      import('@bull-board/api'),
      import('@bull-board/api/bullMQAdapter'),
      import('@bull-board/hapi')
    ]);
    server.auth.scheme('queue-dashboard-basic', () => ({
      async authenticate(request: Request, h: ResponseToolkit) {
        const header = request.headers.authorization as string | undefined;
        const ip = clientIp(request);
        const presented = presentedUser(header);
        await assertCredentialFailuresUnderLimit(ctx, RATE_LIMIT_ACTION, ip, presented);
        if (!basicCredentialsMatch(header, user, password)) {
          // A browser's first request, without credentials, is no guess.
          if (header) await countCredentialFailure(ctx, RATE_LIMIT_ACTION, ip, presented);
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
      options: {
        uiConfig: { boardTitle: 'Shopwright queues' },
        handlerHooks: { after: (_context, result) => ({ ...result, body: redactDashboardJson(result.body) as typeof result.body }) }
      }
    });

    // bull-board's page leaves without its links to other origins (rendered here by the board's own
    // views manager), and its JSON reaches its UI as it is, not inside the API envelope: serialised
    // here (a string), which the envelope leaves alone.
    server.ext(
      'onPreResponse',
      async (request, h) => {
        const response = request.response;
        if (!isDashboardPath(request.path) || response instanceof Error) return h.continue;
        if ((response.variety as string) === 'view') {
          const view = (response as unknown as { source: { template: string; context: unknown } }).source;
          const html = await (request as unknown as { render(template: string, context: unknown): Promise<string> }).render(view.template, view.context);
          return h.response(withoutExternalReferences(html)).type('text/html; charset=utf-8').code(response.statusCode);
        }
        if (!request.path.startsWith(`${QUEUE_DASHBOARD_PATH}/api/`) || response.variety !== 'plain') return h.continue;
        const source = (response as { source: unknown }).source;
        if (source !== null && typeof source === 'object' && !Buffer.isBuffer(source)) {
          (response as { source: unknown }).source = JSON.stringify(source);
          response.type('application/json; charset=utf-8');
        }
        return h.continue;
      },
      { before: ['shopwright-envelope'] }
    );
    // On every answer under the path, errors included (after the envelope has rendered them).
    server.ext(
      'onPreResponse',
      (request, h) => {
        const response = request.response;
        if (isDashboardPath(request.path) && !(response instanceof Error)) response.header('Content-Security-Policy', QUEUE_DASHBOARD_CSP);
        return h.continue;
      },
      { after: ['shopwright-envelope'] }
    );

    // The plugin's options become the options of each of its routes: every one behind the Basic auth.
    await server.register({ plugin: serverAdapter.registerPlugin(), options: { auth: 'queue-dashboard' } }, { routes: { prefix: QUEUE_DASHBOARD_PATH } });
  }
};
