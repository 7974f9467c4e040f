import type { AppContext } from '../context.js';
import { withinTime } from '../time-limit.js';

const PROBE_TIMEOUT_MS = 1_500;

/**
 * Probes PostgreSQL and the store behind the queues and shared state (Redis PING, or a query on the
 * queues' own PostgreSQL pool) for real, each with a short timeout, and names which backends run.
 */
export async function checkHealth(ctx: AppContext) {
  const [database, queue] = await Promise.all([
    withinTime(Promise.resolve(ctx.db.raw('select 1')), PROBE_TIMEOUT_MS, 'the database probe').then(() => 'connected' as const, () => 'disconnected' as const),
    withinTime(ctx.backends.ping(), PROBE_TIMEOUT_MS, 'the queue backend probe').then(() => 'connected' as const, () => 'disconnected' as const)
  ]);
  const healthy = database === 'connected' && queue === 'connected';
  const kind = ctx.backends.kind;
  return {
    healthy,
    status: healthy ? ('ok' as const) : ('degraded' as const),
    database,
    queue,
    // Monitors written before Redis became optional read `redis`: kept whenever Redis is in use.
    ...(kind === 'redis' ? { redis: queue } : {}),
    backends: { database: 'postgres' as const, queue: kind, rateLimits: kind, cacheInvalidation: kind, sendRate: kind, catalogVersion: kind },
    ...replicaHealth(ctx)
  };
}

/**
 * The read replica as the last periodic probe found it (no query here), when one is configured.
 * A skipped replica does not make the service unhealthy: the primary serves its reads.
 */
function replicaHealth(ctx: AppContext) {
  if (!ctx.replica) return {};
  const { state, lagMs } = ctx.replica.status();
  return { replica: { state, readsFrom: state === 'ok' ? ('replica' as const) : ('primary' as const), lagMs } };
}
