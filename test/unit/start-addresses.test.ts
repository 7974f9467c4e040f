import type { Server } from '@hapi/hapi';
import t from 'tap';
import { addressesOf, describeAddresses } from '../../src/api/addresses.js';

const serverOn = (host: string, port = 3000) => ({ info: { host, port, protocol: 'http' } }) as unknown as Server;

/**
 * Issue #32: the start log names the addresses a person opens. The default HOST listens on every
 * interface, where hapi's own uri says http://0.0.0.0:3000, not an address to open.
 */
t.test('a server on every interface is opened as localhost; a named host as itself', async (t) => {
  const withDashboard = { queueDashboardPassword: 'secret' };
  t.same(addressesOf(serverOn('0.0.0.0'), withDashboard), {
    api: 'http://localhost:3000/api/v1',
    console: 'http://localhost:3000/app',
    queueDashboard: 'http://localhost:3000/admin/queues'
  }, '0.0.0.0 is localhost');
  t.equal(addressesOf(serverOn('::'), withDashboard).console, 'http://localhost:3000/app', ':: is localhost');
  t.equal(addressesOf(serverOn('127.0.0.1', 8080), withDashboard).api, 'http://127.0.0.1:8080/api/v1', 'a named address as itself');
  t.equal(addressesOf(serverOn('::1'), withDashboard).api, 'http://[::1]:3000/api/v1', 'an IPv6 address in brackets');
});

t.test('without a dashboard password the line says the dashboard is not mounted, and how to mount it', async (t) => {
  const addresses = addressesOf(serverOn('0.0.0.0'), { queueDashboardPassword: '' });
  t.equal(addresses.queueDashboard, null, 'no dashboard address');
  t.equal(
    describeAddresses(addresses),
    'API http://localhost:3000/api/v1, console http://localhost:3000/app, queue dashboard not mounted (set QUEUE_DASHBOARD_PASSWORD)',
    'the line in words'
  );
});
