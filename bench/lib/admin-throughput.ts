import type { CheckoutStore } from './bench-store.js';
import type { BenchServer } from './http.js';
import { KeepAliveConnection } from './keep-alive-client.js';
import { percentile } from './shoppers.js';

/**
 * Sends `method pathOf(id)` with `bodyOf(id)` (none when undefined) for every id, `concurrency` at a
 * time over keep-alive admin connections, each request a different id; prints and returns ops/s
 * with p50/p99 and the statuses seen.
 */
export async function adminThroughput(
  server: BenchServer,
  store: CheckoutStore,
  label: string,
  ids: string[],
  request: { method?: string; pathOf: (id: string) => string; bodyOf: (id: string) => unknown; concurrency: number }
): Promise<number> {
  const origin = new URL(server.api);
  const connections = Array.from({ length: request.concurrency }, () => new KeepAliveConnection(origin, { 'content-type': 'application/json', ...store.adminHeaders }));
  await Promise.all(connections.map((connection) => connection.open()));
  const queue = [...ids];
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const started = Date.now();
  await Promise.all(
    connections.map(async (connection) => {
      for (let id = queue.shift(); id; id = queue.shift()) {
        const at = performance.now();
        const body = request.bodyOf(id);
        const response = await connection.post(`/api/v1${request.pathOf(id)}`, body === undefined ? '' : JSON.stringify(body), request.method ?? 'POST');
        latencies.push(performance.now() - at);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
      connection.close();
    })
  );
  const elapsed = Date.now() - started;
  const perSec = (ids.length / elapsed) * 1000;
  console.log(
    `${label}: ${ids.length} in ${(elapsed / 1000).toFixed(1)} s = ${perSec.toFixed(0)}/s, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}`
  );
  return perSec;
}
