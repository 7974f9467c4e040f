import { createServer } from '../../src/api/server.js';
import { closeContext, createContext, openContext, type AppContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import type { QueueName } from '../../src/jobs/queues.js';
import { startWorkers, type WorkerPool } from '../../src/workers/run-workers.js';
import type { ApiResponse, RequestOptions, Teardownable, TestApp } from './app.js';

export interface SecondProcess {
  ctx: AppContext;
  workers: WorkerPool | null;
  request<T = any>(options: RequestOptions): Promise<ApiResponse<T>>;
}

/**
 * Another "process" on the app's database and backends: its own context (pools, listeners, caches,
 * Redis or PostgreSQL connections) and hapi server, sharing only what two real processes share.
 */
export async function secondProcess(t: Teardownable, app: TestApp, options: { workers?: QueueName[] } = {}): Promise<SecondProcess> {
  const ctx = createContext(app.ctx.config, { modules: MODULES, dbPoolMax: 5 });
  await openContext(ctx);
  const server = await createServer(ctx, { port: 0, host: '127.0.0.1' });
  await server.initialize();
  const workers = options.workers ? await startWorkers(ctx, options.workers) : null;
  t.teardown(async () => {
    await workers?.close();
    await server.stop({ timeout: 1_000 });
    await closeContext(ctx);
  });
  return {
    ctx,
    workers,
    async request({ method = 'GET', url, payload, token, storeId, storefrontToken, headers = {} }) {
      const allHeaders: Record<string, string> = { ...headers };
      if (token) allHeaders.authorization = `Bearer ${token}`;
      if (storeId) allHeaders['x-store-id'] = storeId;
      if (storefrontToken) allHeaders['x-storefront-token'] = storefrontToken;
      const response = await server.inject({ method, url: `/api/v1${url}`, payload: payload as object | undefined, headers: allHeaders });
      let body: unknown = response.payload;
      try {
        body = JSON.parse(response.payload);
      } catch {
        // not JSON
      }
      return { status: response.statusCode, headers: response.headers as ApiResponse['headers'], body: body as any, raw: response.payload };
    }
  };
}
