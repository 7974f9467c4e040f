/**
 * The queue dashboard loads nothing from another origin: bull-board's page links Google Fonts
 * (its CSS falls back to system fonts), which we strip, and this policy forbids the browser to
 * fetch, connect to or run anything that is not the app's own. Inline styles stay allowed: the
 * page's loading placeholder and the UI's components use them; they load nothing.
 */
export const QUEUE_DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join('; ');

/** A reference to another origin in an attribute: absolute (`https://…`) or protocol-relative (`//…`). */
const EXTERNAL = String.raw`["']?(?:[a-z][a-z0-9+.-]*:)?//`;
const EXTERNAL_LINK = new RegExp(String.raw`<link\b[^>]*\bhref=${EXTERNAL}[^>]*>\s*`, 'gi');
const EXTERNAL_SCRIPT = new RegExp(String.raw`<script\b[^>]*\bsrc=${EXTERNAL}[^>]*>\s*</script>\s*`, 'gi');

/** The dashboard page without its links and scripts to other origins. */
export function withoutExternalReferences(html: string): string {
  return html.replace(EXTERNAL_LINK, '').replace(EXTERNAL_SCRIPT, '');
}
