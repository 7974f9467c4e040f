import type { ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { publicHandler } from '../handler.js';
import { contentTypeOf, readBuilt } from './files.js';

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

/** index.html: never cached (it names the current hashed assets); a missing build says how to make it. */
async function indexPage(h: ResponseToolkit) {
  const html = await readBuilt('index.html');
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
    options: { auth: false, handler: publicHandler(({ h }) => indexPage(h)) }
  },
  {
    method: 'GET',
    path: `${CONSOLE_PATH}/{path*}`,
    options: {
      auth: false,
      handler: publicHandler<{ path: string }>(async ({ params, h }) => {
        const name = params.path;
        if (!name.startsWith('assets/')) return indexPage(h);
        const body = await readBuilt(name);
        if (!body) return h.response('Not found').code(404).type('text/plain; charset=utf-8').header('cache-control', 'no-cache');
        return h.response(body).type(contentTypeOf(name)).header('cache-control', IMMUTABLE).header('content-security-policy', CONSOLE_CSP);
      })
    }
  }
];
