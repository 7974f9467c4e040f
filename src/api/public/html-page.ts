import type { Request, ResponseToolkit } from '@hapi/hapi';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** True when the caller is a browser asking for a page (Accept names text/html before JSON). */
export function wantsHtml(request: Request): boolean {
  const accept = String(request.headers.accept ?? '');
  const html = accept.indexOf('text/html');
  if (html < 0) return false;
  const json = accept.indexOf('application/json');
  return json < 0 || html < json;
}

export interface PageContent {
  title: string;
  paragraphs: string[];
  /** A button that POSTs to `action` (same origin); nothing happens without it being pressed. */
  form?: { action: string; button: string };
}

/** A small self-contained HTML page: no scripts, no external resources, no framing. */
export function htmlPage(h: ResponseToolkit, content: PageContent, status = 200) {
  const paragraphs = content.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const form = content.form
    ? `<form method="post" action="${escapeHtml(content.form.action)}"><button type="submit">${escapeHtml(content.form.button)}</button></form>`
    : '';
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(content.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style>
</head><body><h1>${escapeHtml(content.title)}</h1>
${paragraphs}
${form}
</body></html>`;
  return h
    .response(body)
    .code(status)
    .type('text/html; charset=utf-8')
    .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
    .header('Cache-Control', 'no-store');
}
