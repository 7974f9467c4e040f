import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SHOPIFY_COLUMNS } from '../../src/services/catalog/csv/shopify-columns.js';
import type { Owner, TestApp } from './app.js';
import { TINY_PNG } from './catalog.js';
import { waitForJob } from './jobs.js';

/** A local image host for imports: /a.png and /b.png (PNG), /big.png (11 MB), /text.png (not an image), anything else 404. Counts requests. */
export async function imageServer(t: { teardown(fn: () => unknown): void }) {
  const hits: string[] = [];
  const server = http.createServer((request, response) => {
    hits.push(request.url ?? '');
    if (request.url === '/a.png' || request.url === '/b.png') return void response.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG);
    if (request.url === '/big.png') return void response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([TINY_PNG, Buffer.alloc(11 * 1024 * 1024)]));
    if (request.url === '/text.png') return void response.writeHead(200, { 'content-type': 'image/png' }).end('hello, not an image');
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, hits };
}

type Row = Partial<Record<(typeof SHOPIFY_COLUMNS)[number], string>>;

/** A Shopify product CSV from rows given by column name (missing cells empty), plus optional extra columns. */
export function shopifyCsv(rows: Row[], extra: string[] = []): string {
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const header = [...SHOPIFY_COLUMNS, ...extra];
  return [header.map(quote).join(','), ...rows.map((row) => header.map((c) => quote((row as Record<string, string>)[c] ?? '')).join(','))].join('\n') + '\n';
}

export async function importProducts(app: TestApp, owner: Owner, csv: string, query = '') {
  return app.request({ method: 'POST', url: `/admin/products/import${query}`, payload: csv, token: owner.accessToken, storeId: owner.store.id, headers: { 'content-type': 'text/csv' } });
}

export async function importProductsAndWait(app: TestApp, owner: Owner, csv: string, query = '') {
  const response = await importProducts(app, owner, csv, query);
  if (response.status !== 202) throw new Error(`import refused: ${response.status} ${response.raw}`);
  return waitForJob(app, owner, response.body.data.job.id);
}

/** Runs an export to completion and downloads the file. */
export async function exportProducts(app: TestApp, owner: Owner, filters: Record<string, string> = {}): Promise<string> {
  const started = await app.request({ method: 'POST', url: '/admin/products/export', payload: filters, token: owner.accessToken, storeId: owner.store.id });
  if (started.status !== 202) throw new Error(`export refused: ${started.status} ${started.raw}`);
  const job = await waitForJob(app, owner, started.body.data.job.id);
  if (job.status !== 'completed') throw new Error(`export ${job.status}: ${job.error}`);
  const download = await app.request({ url: `/admin/jobs/${job.id}/download`, token: owner.accessToken, storeId: owner.store.id });
  return download.raw;
}
