import { createHash } from 'node:crypto';
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

export interface FormField {
  name: string;
  label: string;
  type: 'text' | 'password' | 'hidden';
  value?: string;
  autocomplete?: string;
  minLength?: number;
  maxLength?: number;
  required?: boolean;
}

export interface PageItem {
  text: string;
  /** Shown as a link only when it is an http(s) URL. */
  link?: string | null;
}

export interface PageContent {
  title: string;
  paragraphs: string[];
  /** What went wrong with a form post, shown above the form. */
  errors?: string[];
  /** Lists under headings (an order's items, its shipments). */
  sections?: Array<{ heading: string; items: PageItem[] }>;
  /** A form that POSTs to `action` (same origin); nothing happens without it being submitted. */
  form?: { action: string; button: string; fields?: FormField[] };
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}' +
  'button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}label{display:block;margin:.8rem 0 .2rem}' +
  'input{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}form button{margin-top:1rem}.errors{color:#a00}';
// The one inline style is allowed by its hash: no 'unsafe-inline', no scripts, nothing external.
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');
export const PAGE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

const safeLink = (link: string | null | undefined): string | null => {
  if (!link) return null;
  try {
    return ['http:', 'https:'].includes(new URL(link).protocol) ? link : null;
  } catch {
    return null;
  }
};

function fieldHtml(field: FormField): string {
  const attributes = [
    `type="${field.type}"`,
    `name="${escapeHtml(field.name)}"`,
    `id="f-${escapeHtml(field.name)}"`,
    field.value !== undefined ? `value="${escapeHtml(field.value)}"` : '',
    field.autocomplete ? `autocomplete="${escapeHtml(field.autocomplete)}"` : '',
    field.minLength !== undefined ? `minlength="${field.minLength}"` : '',
    field.maxLength !== undefined ? `maxlength="${field.maxLength}"` : '',
    field.required ? 'required' : ''
  ].filter(Boolean);
  const input = `<input ${attributes.join(' ')}>`;
  return field.type === 'hidden' ? input : `<label for="f-${escapeHtml(field.name)}">${escapeHtml(field.label)}</label>${input}`;
}

function itemHtml(item: PageItem): string {
  const link = safeLink(item.link);
  return link ? `<li><a href="${escapeHtml(link)}" rel="noopener noreferrer">${escapeHtml(item.text)}</a></li>` : `<li>${escapeHtml(item.text)}</li>`;
}

/** A small self-contained HTML page: every value escaped, no scripts, no external resources, no framing. */
export function htmlPage(h: ResponseToolkit, content: PageContent, status = 200) {
  const paragraphs = content.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const errors = content.errors?.length ? `<ul class="errors">${content.errors.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>` : '';
  const sections = (content.sections ?? [])
    .filter((section) => section.items.length)
    .map((section) => `<h2>${escapeHtml(section.heading)}</h2><ul>${section.items.map(itemHtml).join('')}</ul>`)
    .join('\n');
  const form = content.form
    ? `<form method="post" action="${escapeHtml(content.form.action)}">${(content.form.fields ?? []).map(fieldHtml).join('')}<button type="submit">${escapeHtml(content.form.button)}</button></form>`
    : '';
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(content.title)}</title>
<style>${STYLE}</style>
</head><body><h1>${escapeHtml(content.title)}</h1>
${paragraphs}
${sections}
${errors}
${form}
</body></html>`;
  return h
    .response(body)
    .code(status)
    .type('text/html; charset=utf-8')
    .header('Content-Security-Policy', PAGE_CSP)
    .header('Cache-Control', 'no-store')
    .header('Referrer-Policy', 'no-referrer');
}
