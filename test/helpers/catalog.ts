import type { Owner, TestApp } from './app.js';

/** Creates a product through the admin API; fails the test setup loudly when it does not answer 201. */
export async function createProduct(app: TestApp, owner: Owner, payload: Record<string, unknown>) {
  const response = await app.request({ method: 'POST', url: '/admin/products', payload, token: owner.accessToken, storeId: owner.store.id });
  if (response.status !== 201) throw new Error(`create product failed: ${response.status} ${response.raw}`);
  return response.body.data.product;
}

export const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

/** A 1×1 transparent PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64'
);

/** A multipart/form-data body with one file part and optional text fields. */
export function multipart(file: { name?: string; filename: string; contentType: string; data: Buffer } | null, fields: Record<string, string> = {}) {
  const boundary = `----shopwright${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`
      ),
      file.data,
      Buffer.from('\r\n')
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
