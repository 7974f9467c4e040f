import pg from 'pg';

/** One statement on its own connection (seeding and reading back between runs, off the measured path). */
export async function sql<T = any>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A JSON call to a bench server's API; a non-2xx answer throws with its body. Returns the envelope's `data`. */
export async function api(base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/api/v1${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const payload = (await response.json()) as any;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(payload)}`);
  return payload.data;
}
