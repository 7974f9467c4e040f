import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Plugin, Request, ResponseObject } from '@hapi/hapi';
import type { Schema } from 'joi';
import { Enveloped } from './envelope.js';

interface ResponseSettings {
  status?: Record<string, Schema | undefined>;
  schema?: Schema | null;
}

/** The joi schema a route declares for the `data` of a success status, if any. */
export function declaredDataSchema(request: Request, statusCode: number): Schema | undefined {
  const settings = request.route.settings.response as ResponseSettings | undefined;
  return settings?.status?.[statusCode] ?? settings?.schema ?? undefined;
}

/** The `data` a handler answered with, whatever form it took (object, Enveloped, envelope text, compressed text). */
function dataOf(response: ResponseObject): { data: unknown } | undefined {
  const source = response.source;
  if (source instanceof Enveloped) return { data: source.data };
  if (typeof source === 'string' || Buffer.isBuffer(source)) {
    const coding = (response.settings as { compressed?: string }).compressed;
    const bytes = Buffer.isBuffer(source) ? source : Buffer.from(source);
    const text = (coding === 'br' ? brotliDecompressSync(bytes) : coding === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
    if (!text.startsWith('{"success":true')) return undefined;
    return { data: (JSON.parse(text) as { data: unknown }).data };
  }
  if (source !== null && typeof source === 'object') return { data: 'success' in source ? (source as { data: unknown }).data : source };
  return undefined;
}

/**
 * Holds every success response to the joi data schema its route declares in `response.status`
 * (the schemas the OpenAPI document publishes). hapi's own response validation stays off
 * (`sample: 0`) so production pays nothing; with `VALIDATE_RESPONSES` (on in tests) a response that
 * drifts from its schema becomes a 500 naming each mismatch, so the suite catches it.
 */
export const responseContractPlugin: Plugin<void> = {
  name: 'shopwright-response-contract',
  register(server) {
    if (!server.app.ctx.config.validateResponses) return;
    server.ext('onPreResponse', (request, h) => {
      const response = request.response;
      // The storefront catalog answers a Buffer (cached envelope text, maybe compressed): variety 'buffer'.
      if (response instanceof Error || (response.variety !== 'plain' && response.variety !== 'buffer')) return h.continue;
      if (response.statusCode < 200 || response.statusCode >= 300) return h.continue;
      const schema = declaredDataSchema(request, response.statusCode);
      if (!schema) return h.continue;
      const answered = dataOf(response);
      if (!answered) return h.continue;
      const { error } = schema.validate(answered.data, { abortEarly: false });
      if (!error) return h.continue;
      const details = error.details.map((detail) => ({ path: detail.path.join('.'), message: detail.message }));
      server.app.ctx.log.error({ route: request.route.path, method: request.method, details }, 'response does not match its declared schema');
      return h
        .response({ success: false, error: { code: 'internal_error', message: `Response of ${request.method.toUpperCase()} ${request.route.path} does not match its declared schema`, details }, meta: {} })
        .code(500);
    });
  }
};
