import type { ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { publicHandler } from '../handler.js';
import type { AppContext } from '../../context.js';
import { consoleBuilding, consoleDistOf, contentTypeOf, readBuilt } from './files.js';

export const CONSOLE_PATH = '/app';

/**
 * The console's Content-Security-Policy: scripts and styles from this origin only, no inline script
 * and no eval. Styles allow inline `style` attributes and Mantine's one <style> of CSS variables
 * ('unsafe-inline' for styles only; a stylesheet cannot run code). API calls go to this origin.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'"
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Seconds a browser waits before asking again while the console builds. */
export const BUILDING_RETRY_AFTER_S = 5;

/** The page /app answers while `npm start` builds the console: it reloads itself (no script: the CSP allows none inline). */
const BUILDING_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="${BUILDING_RETRY_AFTER_S}"><title>Shopwright console</title></head>
<body><p>The console is building. This page reloads in a moment.</p><p>The API already answers at /api/v1.</p></body></html>`;

/**
 * index.html: never cached (it names the current hashed assets). While the console builds, a page
 * that says so and reloads (503 with Retry-After); a missing build says how to make it.
 */
async function indexPage(ctx: AppContext, h: ResponseToolkit) {
  const dist = consoleDistOf(ctx.config);
  const html = await readBuilt('index.html', dist);
  if (!html && consoleBuilding.has(dist)) {
    return h.response(BUILDING_PAGE).code(503).type('text/html; charset=utf-8').header('retry-after', String(BUILDING_RETRY_AFTER_S)).header('cache-control', 'no-store').header('content-security-policy', CONSOLE_CSP);
  }
  if (!html) {
    return h.response('The console is not built: run `npm run build` (or `npm start`, which builds it).').code(503).type('text/plain; charset=utf-8');
  }
  return h.response(html).type('text/html; charset=utf-8').header('cache-control', 'no-cache').header('content-security-policy', CONSOLE_CSP);
}

/**
 * `/app` and everything under it: hashed files under /app/assets/ are cached for a year (their name
 * changes with their content); any other path is a screen of the single-page app (history fallback).
 */
export const consoleRoutes: ServerRoute[] = [
  {
    method: 'GET',
    path: CONSOLE_PATH,
    options: { auth: false, handler: publicHandler(({ ctx, h }) => indexPage(ctx, h)) }
  },
  {
    method: 'GET',
    path: `${CONSOLE_PATH}/{path*}`,
    options: {
      auth: false,
      handler: publicHandler<{ path: string }>(async ({ ctx, params, h }) => {
        const name = params.path;
        if (!name.startsWith('assets/')) return indexPage(ctx, h);
        const body = await readBuilt(name, consoleDistOf(ctx.config));
        if (!body) return h.response('Not found').code(404).type('text/plain; charset=utf-8').header('cache-control', 'no-cache');
        return h.response(body).type(contentTypeOf(name)).header('cache-control', IMMUTABLE).header('content-security-policy', CONSOLE_CSP);
      })
    }
  }
];
