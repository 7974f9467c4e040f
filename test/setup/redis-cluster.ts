import { startRedisCluster } from '../helpers/redis-cluster.js';

/**
 * A local 3-master Redis Cluster for trying the app or a test file on it by hand:
 *   node dist/test/setup/redis-cluster.js     (prints REDIS_CLUSTER_NODES, stops on Ctrl-C)
 * Ports: TEST_REDIS_CLUSTER_PORTS, else the first free triple of 7101-7109 (their bus ports are +10000).
 */
const cluster = await startRedisCluster();
console.log(`REDIS_CLUSTER_NODES=${cluster.nodes}`);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    void cluster.stop().then(() => process.exit(0));
  });
}
