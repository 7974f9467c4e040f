import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { postWebhook } from '../../src/services/webhooks/http-post.js';

/** A receiver on 127.0.0.1 counting its connections; it answers once `release` is called (or at once). */
async function receiver(t: Test, hold = false) {
  const state = { connections: 0, requests: 0 };
  const waiting: Array<() => void> = [];
  const server = http.createServer((request, response) => {
    state.requests += 1;
    request.resume();
    request.on('end', () => {
      const answer = () => response.writeHead(200).end('ok');
      if (hold) waiting.push(answer);
      else answer();
    });
  });
  server.on('connection', () => (state.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as AddressInfo).port;
  return { port, state, release: () => waiting.splice(0).forEach((answer) => answer()), waiting };
}

const LOOPBACK = [{ address: '127.0.0.1', family: 4 }];

/**
 * Issue #38: deliveries to one checked destination reuse their connection (keep-alive agent per
 * destination), and the worker's long-lived shutdown signal carries one abort listener, not one per
 * request in flight (MaxListenersExceededWarning at the webhooks queue's concurrency of 50).
 */
t.test('sequential deliveries to one checked destination share one kept-alive connection', async (t) => {
  const r = await receiver(t);
  for (let i = 0; i < 10; i++) {
    const result = await postWebhook(`http://127.0.0.1:${r.port}/hook`, '{}', {}, LOOPBACK);
    t.equal(result.statusCode, 200);
  }
  t.equal(r.state.requests, 10);
  t.equal(r.state.connections, 1, 'one connection for ten deliveries');
});

t.test('a destination checked to other addresses never gets a kept socket of another', async (t) => {
  const r = await receiver(t);
  await postWebhook(`http://127.0.0.1:${r.port}/a`, '{}', {}, LOOPBACK);
  // The same URL whose check now answers another address list (a re-resolution): its own agent and connection.
  await postWebhook(`http://127.0.0.1:${r.port}/a`, '{}', {}, [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
  t.equal(r.state.connections, 2, 'a new connection for the other checked destination');
});

t.test('fifty deliveries in flight under one shutdown signal add one abort listener to it, and abort ends them all', async (t) => {
  const r = await receiver(t, true);
  const shutdown = new AbortController();
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));
  const posts = Array.from({ length: 50 }, () => postWebhook(`http://127.0.0.1:${r.port}/held`, '{}', {}, LOOPBACK, shutdown.signal));
  while (r.waiting.length < 50) await new Promise((resolve) => setImmediate(resolve));
  t.equal(getEventListeners(shutdown.signal, 'abort').length, 1, 'one listener while fifty are in flight');
  r.release();
  t.ok((await Promise.all(posts)).every((result) => result.statusCode === 200));
  t.ok(getEventListeners(shutdown.signal, 'abort').length <= 1, 'none added per delivery');

  const more = Array.from({ length: 5 }, () => postWebhook(`http://127.0.0.1:${r.port}/held`, '{}', {}, LOOPBACK, shutdown.signal));
  while (r.waiting.length < 5) await new Promise((resolve) => setImmediate(resolve));
  shutdown.abort();
  const aborted = await Promise.all(more);
  t.ok(aborted.every((result) => result.statusCode === null && /shutting down/.test(result.error ?? '')), 'aborting the signal ends every request in flight');
  await new Promise((resolve) => setImmediate(resolve));
  t.same(warnings.filter((w) => w.name === 'MaxListenersExceededWarning'), [], 'no MaxListenersExceededWarning');
});
