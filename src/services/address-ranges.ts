import { BlockList, isIP } from 'node:net';

/**
 * The one classifier of addresses the platform must not connect to on a store admin's behalf
 * (webhook URLs, store SMTP hosts, the external system's base URL). Three guards each kept a list
 * before, and each only unwrapped `::ffff:a.b.c.d`; an IPv6 address that carries an IPv4 address
 * inside it (IPv4-compatible, SIIT, 6to4, Teredo, NAT64) reached 127.0.0.1 through the gap.
 */

/** Where cloud metadata services answer: refused even when private receivers are allowed for local testing. */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6');

/** Loopback, private, shared (CGNAT), documentation, benchmarking, multicast, reserved and unspecified. */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
  ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4]
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // Unique local, site-local (deprecated), multicast, discard-only, documentation, ORCHID.
  ['fc00::', 7], ['fec0::', 10], ['ff00::', 8], ['100::', 64], ['2001:db8::', 32], ['2001:10::', 28], ['2001:20::', 28],
  // Local-use NAT64 (RFC 8215): a network-specific prefix, translated inside the network that runs it,
  // with any of RFC 6052's embeddings; as a whole it is a way into local infrastructure.
  ['64:ff9b:1::', 48]
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv6');
}

export type RefusedKind = 'link-local' | 'internal';

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad and `::` expanded, a zone dropped). */
export function ipv6Groups(address: string): number[] | null {
  if (isIP(address.split('%')[0]!) !== 6) return null;
  let text = address.split('%')[0]!.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const groups = halves.length === 2 ? [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((group) => group >= 0 && group <= 0xffff) ? groups : null;
}

const quadOf = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
const zero = (groups: number[], from: number, to: number) => groups.slice(from, to).every((group) => group === 0);

/**
 * The IPv4 addresses an IPv6 address stands for, by the forms that deliver to them: IPv4-compatible
 * `::/96` (`::` and `::1` included), IPv4-mapped `::ffff:0:0/96`, SIIT `::ffff:0:0:0/96`, 6to4
 * `2002::/16` (bits 16–47), Teredo `2001::/32` (the server at bits 32–63, the client in the last 32
 * bits inverted) and NAT64's well-known `64:ff9b::/96`. Empty for any other address.
 */
export function embeddedIpv4(address: string): string[] {
  const g = ipv6Groups(address);
  if (!g) return [];
  if (zero(g, 0, 6)) return [quadOf(g[6]!, g[7]!)];
  if (zero(g, 0, 5) && g[5] === 0xffff) return [quadOf(g[6]!, g[7]!)];
  if (zero(g, 0, 4) && g[4] === 0xffff && g[5] === 0) return [quadOf(g[6]!, g[7]!)];
  if (g[0] === 0x2002) return [quadOf(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [quadOf(g[2]!, g[3]!), quadOf(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(g, 2, 6)) return [quadOf(g[6]!, g[7]!)];
  return [];
}

function kindOf(address: string, family: 'ipv4' | 'ipv6'): RefusedKind | null {
  if (LINK_LOCAL.check(address, family)) return 'link-local';
  if (INTERNAL.check(address, family)) return 'internal';
  return null;
}

/**
 * Why the platform may not connect to `address`: `link-local` (the metadata service's ranges),
 * `internal` (any other non-public range, or not an IP address at all), or null for a public
 * address. An IPv6 address carrying an IPv4 one is judged by the IPv4 inside as well, so
 * `[::ffff:0:7f00:1]` is as refused as 127.0.0.1, and `[::ffff:a9fe:a9fe]` as link-local.
 */
export function refusedKind(address: string): RefusedKind | null {
  const family = isIP(address.split('%')[0]!);
  if (family === 4) return kindOf(address, 'ipv4');
  if (family !== 6) return 'internal';
  const own = kindOf(address.split('%')[0]!, 'ipv6');
  if (own) return own;
  const inner = embeddedIpv4(address).map((v4) => kindOf(v4, 'ipv4'));
  return inner.includes('link-local') ? 'link-local' : inner.includes('internal') ? 'internal' : null;
}

/** Loopback, private, link-local or any other address the platform must not call. */
export const isInternalAddress = (address: string): boolean => refusedKind(address) !== null;
