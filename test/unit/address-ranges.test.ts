import t from 'tap';
import { embeddedIpv4, ipv6Groups, refusedKind } from '../../src/platform/address-ranges.js';
import { refusedAddress } from '../../src/platform/url-guard.js';

// Teredo: 2001:0:<server IPv4>:<flags>:<port ^ ffff>:<client IPv4 ^ ffffffff>; the server here is public (65.54.227.120).
const teredo = (client: [number, number, number, number]) => {
  const inverted = client.map((octet) => octet ^ 0xff);
  const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
  return `2001:0:4136:e378:8000:63bf:${hex(inverted[0]!, inverted[1]!)}:${hex(inverted[2]!, inverted[3]!)}`;
};

t.test('IPv6 forms that carry a loopback or private IPv4 address are refused like that address', async (t) => {
  const internal = [
    // Plain IPv4 and IPv6.
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '100.64.0.1', '0.0.0.0', '255.255.255.255', '::1', '::', 'fc00::1', 'fd12:3456::1', 'ff02::1',
    // IPv4-compatible ::/96 (the URL parser writes [::127.0.0.1] as [::7f00:1]).
    '::127.0.0.1', '::7f00:1', '::a00:1', '::c0a8:101', '0:0:0:0:0:0:7f00:1',
    // IPv4-mapped ::ffff:0:0/96, in every spelling.
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:7F00:1', '0:0:0:0:0:ffff:7f00:1', '0000:0000:0000:0000:0000:ffff:7f00:0001', '::ffff:10.0.0.1',
    // SIIT (IPv4-translated) ::ffff:0:0:0/96.
    '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::ffff:0:a00:1', '::ffff:0:c0a8:101',
    // 6to4 2002::/16: the IPv4 address is bits 16-47.
    '2002:7f00:1::', '2002:7f00:1::1', '2002:a00:1:0:0:0:0:1', '2002:c0a8:101::42',
    // Teredo 2001::/32: the client in the last 32 bits, inverted; or a private server.
    teredo([127, 0, 0, 1]), teredo([10, 0, 0, 1]), teredo([192, 168, 0, 10]), '2001:0:a00:1:8000:63bf:f7f7:f7f7',
    // NAT64: the well-known prefix with a private IPv4 inside, and the local-use /48 as a whole.
    '64:ff9b::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::a00:1', '64:ff9b:1::1', '64:ff9b:1:7f00:1::', '64:ff9b:1:ffff::8.8.8.8',
    // Not an IP address at all.
    'localhost', ''
  ];
  for (const address of internal) t.equal(refusedKind(address), 'internal', `${address || '(empty)'} is internal`);

  const linkLocal = [
    '169.254.169.254', 'fe80::1', 'fe80::1%eth0', 'fd00:ec2::254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::a9fe:a9fe', '::ffff:0:a9fe:a9fe',
    '2002:a9fe:a9fe::', teredo([169, 254, 169, 254]), '64:ff9b::169.254.169.254', '64:ff9b::a9fe:a9fe'
  ];
  for (const address of linkLocal) t.equal(refusedKind(address), 'link-local', `${address} is link-local (the metadata service)`);

  const publicAddresses = [
    '93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:93.184.216.34', '::ffff:0:808:808',
    '2002:5db8:d822::1', teredo([8, 8, 8, 8]), '64:ff9b::8.8.8.8', '64:ff9b::5db8:d822'
  ];
  for (const address of publicAddresses) t.equal(refusedKind(address), null, `${address} is public: its IPv4 address is`);
});

t.test('the embedded IPv4 address of each form', async (t) => {
  t.same(embeddedIpv4('::7f00:1'), ['127.0.0.1'], 'IPv4-compatible');
  t.same(embeddedIpv4('::ffff:7f00:1'), ['127.0.0.1'], 'IPv4-mapped');
  t.same(embeddedIpv4('::ffff:0:7f00:1'), ['127.0.0.1'], 'SIIT');
  t.same(embeddedIpv4('2002:7f00:1::'), ['127.0.0.1'], '6to4');
  t.same(embeddedIpv4(teredo([127, 0, 0, 1])), ['65.54.227.120', '127.0.0.1'], 'Teredo: the server, then the client un-inverted');
  t.same(embeddedIpv4('64:ff9b::7f00:1'), ['127.0.0.1'], 'NAT64');
  t.same(embeddedIpv4('2606:4700:4700::1111'), [], 'an ordinary address carries none');
  t.same(ipv6Groups('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
  t.same(ipv6Groups('1::'), [1, 0, 0, 0, 0, 0, 0, 0]);
  t.equal(ipv6Groups('127.0.0.1'), null, 'not IPv6');
});

t.test('webhook guard: the local-testing flag lets loopback through, never the metadata address in any form', async (t) => {
  for (const address of ['::ffff:0:7f00:1', '2002:7f00:1::', '::7f00:1']) {
    t.match(refusedAddress(address, false), /private or loopback/, `${address} refused in production`);
    t.equal(refusedAddress(address, true), null, `${address} allowed with ALLOW_PRIVATE_WEBHOOK_HOSTS`);
  }
  for (const address of ['::ffff:a9fe:a9fe', '2002:a9fe:a9fe::', '64:ff9b::a9fe:a9fe']) t.match(refusedAddress(address, true), /link-local/, `${address} refused even with the flag`);
  t.equal(refusedAddress('2606:4700:4700::1111', false), null);
});
