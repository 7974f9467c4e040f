import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../errors.js';
import { checkWebhookUrl, pinnedLookup, resolveDestination } from '../../webhooks/url-guard.js';
import { createMedia, MEDIA_MAX_BYTES } from '../media.js';

const FETCH_TIMEOUT_MS = 15_000;

/**
 * Fetches an image a CSV names and stores it as an upload would be (createMedia: type from the
 * magic bytes, 10 MB cap, dimensions), remembering the URL on the media row. The URL goes through
 * the webhooks' SSRF guard as a delivery does: checked (scheme, credentials, every address the
 * name resolves to), then the socket is pinned to the checked addresses (no second resolution a
 * name could rebind to an internal address). Redirects are not followed. The body is
 * cut off past the cap (a lying or missing Content-Length cannot make it bigger).
 * Throws an Error whose message is the row's problem.
 */
export async function importImage(ctx: AppContext, storeId: string, url: string, alt: string | null): Promise<string> {
  const allowPrivate = ctx.config.webhooks.allowPrivateHosts;
  let addresses: Awaited<ReturnType<typeof resolveDestination>>;
  try {
    await checkWebhookUrl(url, allowPrivate);
    addresses = await resolveDestination(url, allowPrivate);
  } catch (error) {
    const detail = error instanceof AppError ? error.details?.[0]?.message : undefined;
    throw new Error(`the image URL is refused: ${detail ?? (error as Error).message}`);
  }
  const file = path.join(os.tmpdir(), `shopwright-image-${randomUUID()}`);
  let bytes = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const target = new URL(url);
      const client = target.protocol === 'https:' ? https : http;
      const request = client.get(target, { agent: false, lookup: pinnedLookup(addresses) as never, timeout: FETCH_TIMEOUT_MS, headers: { 'user-agent': 'Shopwright-Import/1' } }, (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`the image URL answered ${response.statusCode}`));
          return;
        }
        const cap = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            bytes += chunk.length;
            if (bytes > MEDIA_MAX_BYTES) callback(new Error(`the image is larger than ${MEDIA_MAX_BYTES / 1024 / 1024} MB`));
            else callback(null, chunk);
          }
        });
        pipeline(response, cap, createWriteStream(file)).then(resolve, reject);
      });
      request.on('timeout', () => request.destroy(new Error(`the image URL did not answer within ${FETCH_TIMEOUT_MS / 1000} s`)));
      request.on('error', (error) => reject(new Error(`the image could not be fetched: ${error.message}`)));
    });
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  }
  try {
    const media = await createMedia(ctx, storeId, { path: file, bytes }, alt, url);
    return media.id;
  } catch (error) {
    if (error instanceof AppError) throw new Error(`the image is refused: ${error.message}`);
    throw error;
  }
}
