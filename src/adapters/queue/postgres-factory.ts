import { createPostgresBackend } from 'bullmq';

/**
 * BullMQ's `createPostgresBackend`, with a guard its PostgresConnection lacks (6.7.0, and
 * upstream's main): once the connection is closing, it checks no LISTEN client out of the pool.
 *
 * Why: a worker names its LISTEN connection as the last step of getting ready (waitUntilReady →
 * setName → getListenClient). A worker closed while it is still getting ready (a SIGTERM right
 * after `npm start`'s API came up, while the workers start; likelier on a slow machine) closes its
 * connection before that step, releasing no LISTEN client since it has none yet; the naming then
 * checks one out of the shared pool, and nothing ever releases it. The pool's end() waits for
 * every checked-out client, so the process hung in its shutdown until the deadline killed it.
 * Refused here instead: the naming is best-effort (BullMQ swallows the error), and a closing
 * worker's or QueueEvents' wait already ends without its LISTEN client.
 */
export const createClosableBackend: typeof createPostgresBackend = (name, opts, factoryOpts) => {
  const backend = createPostgresBackend(name, opts, factoryOpts);
  const { connection } = backend;
  const getListenClient = connection.getListenClient.bind(connection);
  connection.getListenClient = () =>
    connection.isClosing ? Promise.reject(new Error(`queue ${name}: closed, no LISTEN connection`)) : getListenClient();
  return backend;
};
