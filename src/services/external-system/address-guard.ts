import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isInternalAddress } from '../address-ranges.js';

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses private addresses. It runs when the socket connects,
 * so the address checked is the address used: a name that re-resolves to 127.0.0.1 after an
 * earlier check (DNS rebinding) is still refused.
 */
export function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as LookupAddress[];
    const bad = list.find((entry) => isInternalAddress(entry.address));
    if (bad || !list.length) {
      return callback(new PrivateAddressError(`${hostname} resolves to a private address (${bad?.address ?? 'none'})`), []);
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}
