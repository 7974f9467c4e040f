import type { Lifecycle, Plugin } from '@hapi/hapi';
import type { ValidationError } from 'joi';
import { validationFailed, type ErrorDetail } from '../../errors.js';

/** joi failures become 422 `validation_failed` with one detail per bad field (never hapi's 400). */
export const failValidation: Lifecycle.FailAction = (request, _h, error) => {
  const joiError = error as ValidationError | undefined;
  const source = (joiError as { output?: { payload?: { validation?: { source?: string } } } })?.output?.payload?.validation?.source;
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const detail of joiError?.details ?? []) {
    const path = detail.path.length ? detail.path.join('.') : (source ?? 'body');
    // One message per field: the first rule it broke is the one to fix.
    if (seen.has(path)) continue;
    seen.add(path);
    details.push({ path, message: detail.message.replace(/"/g, '') });
  }
  throw validationFailed(details.length ? details : [{ path: source ?? 'body', message: joiError?.message ?? 'invalid' }]);
};

export const VALIDATION_OPTIONS = { abortEarly: false, convert: true, errors: { wrap: { label: false } } } as const;

const MAX_DEPTH = 32;

/** Paths of every string (or object key) holding a NUL character, however deep. */
export function nulBytePaths(value: unknown, path: string, out: string[] = [], depth = 0): string[] {
  if (out.length >= 10 || depth > MAX_DEPTH) return out;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out.push(path);
    return out;
  }
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return out;
  if (Array.isArray(value)) {
    value.forEach((item, index) => nulBytePaths(item, path ? `${path}.${index}` : String(index), out, depth + 1));
    return out;
  }
  // Only plain data (parsed JSON, query, params, form fields): never streams or file handles.
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return out;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const itemPath = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) out.push(itemPath);
    nulBytePaths(item, itemPath, out, depth + 1);
  }
  return out;
}

/**
 * PostgreSQL refuses NUL characters in text, so a `\u0000` anywhere in params, query or a parsed
 * body would surface as a 500 from whatever query first stored or compared it. Refused here, once,
 * for every route, before any handler runs.
 */
export const inputGuardPlugin: Plugin<void> = {
  name: 'shopwright-input-guard',
  register(server) {
    server.ext('onPreHandler', (request, h) => {
      const paths = [
        ...nulBytePaths(request.params, ''),
        ...nulBytePaths(request.query, ''),
        ...(typeof request.payload === 'string' ? nulBytePaths(request.payload, 'body') : nulBytePaths(request.payload, ''))
      ];
      if (paths.length) throw validationFailed(paths.map((path) => ({ path: path || 'body', message: 'must not contain NUL characters (\\u0000)' })));
      return h.continue;
    });
  }
};
