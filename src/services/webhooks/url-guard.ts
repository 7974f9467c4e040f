import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { validationFailed } from '../../errors.js';
import { ipv6Groups, refusedKind } from '../address-ranges.js';

/**
 * Webhook URLs are chosen by store admins and called from inside our network, so they get the store
 * SMTP hosts' rules (smtp-host-guard): https and public addresses only. ALLOW_PRIVATE_WEBHOOK_HOSTS
 * (never in production) lets local tests use http and loopback/private receivers; link-local
 * addresses (169.254.0.0/16 holds the cloud metadata service, fe80::/10) stay refused even then.
 * The ranges, and the IPv6 forms that carry an IPv4 address, are services/address-ranges.ts's. A URL
 * is checked when it is saved and again at every delivery (resolveDestination), IP literals included.
 */

/** Why this address may not be called, or null. */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  const kind = refusedKind(address);
  if (kind === 'link-local') return 'resolves to a link-local (metadata) address';
  if (kind && !allowPrivate) return 'resolves to a private or loopback address';
  return null;
}

const refused = (message: string) => validationFailed([{ path: 'url', message }]);

/** The host of a URL without IPv6 brackets (an IP literal stays in the URL's compressed form). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/** How long a delivery waits for its host's addresses (the lookup cannot be cancelled; its answer is then ignored). */
const RESOLVE_TIMEOUT_MS = 5_000;

/** Every address of a host, in the resolver's order; an IP literal is its own answer. */
function resolveAll(host: string): Promise<LookupAddress[]> {
  if (isIP(host)) return Promise.resolve([{ address: host, family: isIP(host) }]);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${host} did not resolve within ${RESOLVE_TIMEOUT_MS / 1000} s`)), RESOLVE_TIMEOUT_MS);
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(addresses);
    });
  });
}

export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/** The addresses of `host`, every one of them allowed; a RefusedAddressError names the first that is not. */
async function checkedAddresses(host: string, allowPrivate: boolean): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch (error) {
    throw new RefusedAddressError(`${host} does not resolve (${(error as Error).message})`);
  }
  if (!addresses.length) throw new RefusedAddressError(`${host} does not resolve`);
  for (const { address } of addresses) {
    const why = refusedAddress(address, allowPrivate);
    if (why) throw new RefusedAddressError(`${host} ${why}`);
  }
  return addresses;
}

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
  const host = hostOf(url);
  try {
    await checkedAddresses(host, allowPrivate);
  } catch (error) {
    throw refused((error as Error).message.replace(/ \(.*\)$/, ''));
  }
  return url.toString();
}

/**
 * Where a delivery goes, checked at delivery time: the URL's host may resolve elsewhere than when it
 * was saved, and a literal saved under older rules is judged by today's. `addresses` are then the
 * only ones the socket may use (pinnedLookup), so what was checked is what is connected to.
 */
export async function resolveDestination(rawUrl: string, allowPrivate: boolean): Promise<LookupAddress[]> {
  return checkedAddresses(hostOf(new URL(rawUrl)), allowPrivate);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A socket `lookup` answering with already checked addresses only (no second resolution to rebind). */
export function pinnedLookup(addresses: LookupAddress[]) {
  return (_hostname: string, options: object, callback: LookupCallback): void => {
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

/**
 * One name for one machine, for the per-destination in-flight cap: an IPv6 address in full form
 * (its spellings agree), an IPv4-mapped one as its IPv4 address (the socket connects over IPv4),
 * a host name lower-cased (the URL parser already does).
 */
export function destinationKey(hostOrAddress: string): string {
  const groups = ipv6Groups(hostOrAddress);
  if (!groups) return hostOrAddress.toLowerCase();
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return groups.map((group) => group.toString(16)).join(':');
}
