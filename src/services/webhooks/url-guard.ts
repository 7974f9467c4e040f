import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { validationFailed } from '../../errors.js';
import { isInternalAddress } from '../email/index.js';

/**
 * Webhook URLs are chosen by store admins and called from inside our network, so they get the store
 * SMTP hosts' rules (smtp-host-guard): https and public addresses only. ALLOW_PRIVATE_WEBHOOK_HOSTS
 * (never in production) lets local tests use http and loopback/private receivers; link-local
 * addresses (169.254.0.0/16 holds the cloud metadata service, fe80::/10) stay refused even then.
 */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6');

function isLinkLocal(address: string): boolean {
  const family = isIP(address);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return LINK_LOCAL.check(mapped[1]!, 'ipv4');
  return family === 4 ? LINK_LOCAL.check(address, 'ipv4') : family === 6 ? LINK_LOCAL.check(address, 'ipv6') : true;
}

/** Why this address may not be called, or null. */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  if (isLinkLocal(address)) return 'resolves to a link-local (metadata) address';
  if (!allowPrivate && isInternalAddress(address)) return 'resolves to a private or loopback address';
  return null;
}

const refused = (message: string) => validationFailed([{ path: 'url', message }]);

/** Checks a webhook URL when it is saved: scheme, no credentials, and every address its host resolves to. */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw refused('must use https');
  if (url.username || url.password) throw refused('must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    throw refused(`${host} does not resolve`);
  }
  if (!addresses.length) throw refused(`${host} does not resolve`);
  for (const address of addresses) {
    const why = refusedAddress(address, allowPrivate);
    if (why) throw refused(`${host} ${why}`);
  }
  return url.toString();
}

export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A socket `lookup` for deliveries: the address checked is the one connected to, at every delivery
 * (a name that re-resolves to 127.0.0.1 after the save is still refused).
 */
export function webhookLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const bad = list.map((entry) => refusedAddress(entry.address, allowPrivate)).find(Boolean);
      if (bad || !list.length) return callback(new RefusedAddressError(`${hostname} ${bad ?? 'does not resolve'}`), []);
      if ((options as { all?: boolean }).all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
