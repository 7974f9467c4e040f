import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { unprocessable } from '../../errors.js';
import { isInternalAddress } from '../address-ranges.js';

/**
 * Store SMTP hosts are chosen by store admins, and the platform connects to them from inside its
 * network: a host resolving to loopback, private, link-local (cloud metadata) or other internal
 * ranges would let an admin probe our network. Refused unless ALLOW_PRIVATE_SMTP_HOSTS=true.
 * The ranges, IPv6 forms that carry an IPv4 address included, are services/address-ranges.ts's.
 */
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
