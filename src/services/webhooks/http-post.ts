import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { pinnedLookup } from './url-guard.js';

export const DELIVERY_TIMEOUT_MS = 10_000;
const KEPT_BODY_BYTES = 1024;

export interface PostResult {
  statusCode: number | null;
  durationMs: number;
  /** The first 1 KB of the response body (UTF-8, cut), or null. */
  body: string | null;
  error: string | null;
}

/**
 * One POST, never following a redirect (a 3xx is an answer like any other non-2xx), to one of
 * `addresses` only (resolved and checked by the caller: url-guard's resolveDestination), and 10 s
 * for the whole exchange.
 */
export function postWebhook(url: string, body: string, headers: Record<string, string>, addresses: LookupAddress[], signal?: AbortSignal): Promise<PostResult> {
  const started = Date.now();
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: Date.now() - started });
    };
    const request = client.request(
      target,
      {
        method: 'POST',
        agent: false,
        lookup: pinnedLookup(addresses) as never,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Shopwright-Webhooks/1', ...headers },
        signal
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < KEPT_BODY_BYTES) {
            chunks.push(chunk.subarray(0, KEPT_BODY_BYTES - kept));
            kept += Math.min(chunk.length, KEPT_BODY_BYTES - kept);
          }
        });
        response.on('end', () => finish({ statusCode: response.statusCode ?? null, body: Buffer.concat(chunks).toString('utf8'), error: null }));
        response.on('error', (error) => finish({ statusCode: response.statusCode ?? null, body: Buffer.concat(chunks).toString('utf8'), error: error.message }));
      }
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`));
    }, DELIVERY_TIMEOUT_MS);
    request.on('error', (error) => finish({ statusCode: null, body: null, error: error.message }));
    request.end(body);
  });
}
