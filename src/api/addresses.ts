import type { Server } from '@hapi/hapi';
import type { Config } from '../config.js';
import { CONSOLE_PATH } from './console/routes.js';
import { QUEUE_DASHBOARD_PATH } from './plugins/queue-dashboard.js';
import { API_PREFIX } from './server.js';

/** Where a started server's API, console and queue dashboard are (the dashboard null when not mounted). */
export interface Addresses {
  api: string;
  console: string;
  queueDashboard: string | null;
}

/**
 * The addresses to open, for the start log (issue #32: a newcomer reads where the console is).
 * A server on every interface (the default HOST, 0.0.0.0) is opened as localhost; hapi's own
 * `info.uri` would say http://0.0.0.0:3000.
 */
export function addressesOf(server: Server, config: Pick<Config, 'queueDashboardPassword'>): Addresses {
  const { host, port, protocol } = server.info;
  const everywhere = !host || host === '0.0.0.0' || host === '::';
  const name = everywhere ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const base = `${protocol}://${name}:${port}`;
  return {
    api: `${base}${API_PREFIX}`,
    console: `${base}${CONSOLE_PATH}`,
    queueDashboard: config.queueDashboardPassword ? `${base}${QUEUE_DASHBOARD_PATH}` : null
  };
}

/** One line a person reads: "API …, console …, queue dashboard …". */
export function describeAddresses(addresses: Addresses): string {
  const dashboard = addresses.queueDashboard ?? 'not mounted (set QUEUE_DASHBOARD_PASSWORD)';
  return `API ${addresses.api}, console ${addresses.console}, queue dashboard ${dashboard}`;
}
