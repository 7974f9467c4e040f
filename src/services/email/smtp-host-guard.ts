import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { unprocessable } from '../../errors.js';

/**
 * Store SMTP hosts are chosen by store admins, and the platform connects to them from inside its
 * network: a host resolving to loopback, private, link-local (cloud metadata) or other internal
 * ranges would let an admin probe our network. Refused unless ALLOW_PRIVATE_SMTP_HOSTS=true.
 */
const internal = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]
] as const) {
  internal.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
  internal.addSubnet(network, prefix, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return internal.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return internal.check(mapped[1]!, 'ipv4');
  return internal.check(address, 'ipv6');
}

const refused = (host: string, why: string) =>
  unprocessable('validation_failed', 'Request validation failed', [{ path: 'email.smtp.host', message: `${host} ${why}` }]);

/**
 * The address to connect to for `host`, checked. Called when the settings are saved and again at
 * every connect (the name may resolve elsewhere by then); the transport then connects to the checked
 * address, not the name, so a DNS answer cannot change between the check and the connection.
 */
export async function checkedSmtpAddress(host: string, allowPrivate: boolean): Promise<string> {
  if (allowPrivate) return host;
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    throw refused(host, 'does not resolve');
  }
  if (!addresses.length) throw refused(host, 'does not resolve');
  if (addresses.some(isInternalAddress)) throw refused(host, 'resolves to a private, loopback or link-local address');
  return addresses[0]!;
}
