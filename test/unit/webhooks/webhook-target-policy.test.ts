import ipaddr from 'ipaddr.js';
import { addressProblem, checkUrl, resolveTarget, targetPolicy, TargetRefused } from '../../../src/webhooks/target-policy';

const strict = targetPolicy({ allowHttp: false, allowedPrivateRanges: [] });
const dev = targetPolicy({ allowHttp: true, allowedPrivateRanges: ['127.0.0.1/32', '10.1.0.0/16'] });
const answering =
  (...addresses: string[]) =>
  (_host: string, _o: unknown, cb: (err: null, a: { address: string; family: number }[]) => void) =>
    cb(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

/** The IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates), and multicast: none is a webhook target. */
const IPV4_SPECIAL = [
  '0.0.0.0/8',
  '0.0.0.0/32',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.0.0/29',
  '192.0.0.8/32',
  '192.0.0.9/32',
  '192.0.0.10/32',
  '192.0.0.170/32',
  '192.0.0.171/32',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '240.0.0.0/4',
  '255.255.255.255/32',
  '224.0.0.0/4',
];

/** The IANA IPv6 Special-Purpose Address Registry, plus multicast, site-local and space outside 2000::/3. */
const IPV6_SPECIAL = [
  '::1/128',
  '::/128',
  '::ffff:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '100:0:0:1::/64',
  '2001::/23',
  '2001::/32',
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
  '2001:2::/48',
  '2001:3::/32',
  '2001:4:112::/48',
  '2001:10::/28',
  '2001:20::/28',
  '2001:30::/28',
  '2001:db8::/32',
  '2002::/16',
  '2620:4f:8000::/48',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
  '::/8',
  '4000::/2',
];

/** The first and the last address of a range. */
function ends(range: string): string[] {
  const v6 = range.includes(':');
  const first = v6 ? ipaddr.IPv6.networkAddressFromCIDR(range) : ipaddr.IPv4.networkAddressFromCIDR(range);
  const last = v6 ? ipaddr.IPv6.broadcastAddressFromCIDR(range) : ipaddr.IPv4.broadcastAddressFromCIDR(range);
  return [first.toString(), last.toString()];
}

/** IPv4 addresses written into each IPv6 form that carries one (RFC 4291, 6145, 6052, 8215, 3056, 4380). */
const EMBED: Record<string, (v4: string) => string> = {
  'IPv4-mapped': (v4) => `::ffff:${v4}`,
  'IPv4-translated': (v4) => `::ffff:0:${v4}`,
  'IPv4-compatible': (v4) => `::${v4}`,
  'NAT64 well-known': (v4) => `64:ff9b::${v4}`,
  '6to4': (v4) => {
    const [a, b, c, d] = v4.split('.').map(Number);
    return `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::1`;
  },
  'Teredo client': (v4) => {
    const [a, b, c, d] = v4.split('.').map((n) => 255 - Number(n));
    return `2001:0:808:808:0:0:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  },
  'Teredo server': (v4) => {
    const [a, b, c, d] = v4.split('.').map(Number);
    return `2001:0:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}:0:0:f7f7:f7f7`;
  },
};
const INTERNAL_V4 = ['127.0.0.1', '169.254.169.254', '10.0.0.1', '0.0.0.0', '192.168.1.1', '100.64.0.1', '224.0.0.1'];
const PUBLIC_V4 = '8.8.8.8';

describe('webhook target policy', () => {
  it('requires https unless http is allowed, and refuses credentials in the URL', () => {
    expect(() => checkUrl('http://hooks.example.com/x', strict)).toThrow('url must use https, not http');
    expect(checkUrl('http://hooks.example.com/x', dev).hostname).toBe('hooks.example.com');
    expect(() => checkUrl('https://user:pw@hooks.example.com/', strict)).toThrow('credentials');
    expect(() => checkUrl('ftp://hooks.example.com/', dev)).toThrow(TargetRefused);
  });

  it('names the setting that allows an http URL', () => {
    expect(() => checkUrl('http://hooks.example.com/x', strict)).toThrow(
      'url must use https, not http (WEBHOOK_ALLOW_HTTP=true allows http, for development)',
    );
  });

  it('says once what a literal address is, and names the setting that allows it', async () => {
    await expect(resolveTarget('127.0.0.1', strict, 1000, answering())).rejects.toThrow(
      /^127\.0\.0\.1 is a loopback address \(allow it with WEBHOOK_ALLOWED_PRIVATE_RANGES\)$/,
    );
    await expect(resolveTarget('[::ffff:127.0.0.1]', strict, 1000, answering())).rejects.toThrow(
      /^::ffff:127\.0\.0\.1 is an IPv4-mapped address of 127\.0\.0\.1, a loopback address \(allow it with WEBHOOK_ALLOWED_PRIVATE_RANGES\)$/,
    );
  });

  it('names no setting where the allow-list cannot help (an embedding other than IPv4-mapped)', () => {
    expect(addressProblem('64:ff9b::7f00:1', dev)).toBe(
      '64:ff9b::7f00:1 is a NAT64 (64:ff9b::/96) address of 127.0.0.1, a loopback address',
    );
  });

  describe.each([
    ['IPv4', IPV4_SPECIAL],
    ['IPv6', IPV6_SPECIAL],
  ])('every %s special-purpose range', (_family, ranges) => {
    const addresses = ranges.flatMap((range) => ends(range).map((address) => [range, address]));

    it.each(addresses)('%s: refuses %s as a literal', (_range, address) => {
      expect(addressProblem(address, strict)).toMatch(/ address/);
    });

    it.each(addresses)('%s: refuses a name resolving to %s', async (_range, address) => {
      await expect(resolveTarget('hooks.example.com', strict, 1000, answering('93.184.216.34', address))).rejects.toThrow(
        `hooks.example.com resolves to ${address}`,
      );
    });
  });

  describe.each(Object.entries(EMBED))('an IPv6 address of the %s form', (_form, embed) => {
    it.each(INTERNAL_V4)('is judged by the IPv4 address it carries: refused for %s, literal or resolved', async (v4) => {
      const address = embed(v4);
      expect(addressProblem(address, strict)).toMatch(/ address/);
      await expect(resolveTarget(`[${address}]`, strict, 1000, answering())).rejects.toThrow(TargetRefused);
      await expect(resolveTarget('hooks.example.com', strict, 1000, answering(address))).rejects.toThrow(TargetRefused);
    });

    it(`is allowed when it carries a public address (${PUBLIC_V4})`, () => {
      expect(addressProblem(embed(PUBLIC_V4), strict)).toBeUndefined();
    });
  });

  it('refuses the local-use NAT64 prefix whatever it carries (its IPv4 position is the local network’s choice)', () => {
    expect(addressProblem(`64:ff9b:1::${PUBLIC_V4}`, strict)).toMatch(/local-use NAT64/);
  });

  it.each([
    'https://[::127.0.0.1]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[::ffff:0:7f00:1]/',
    'https://[2002:7f00:1::1]/',
  ])('refuses %s, a form the attack run got accepted', async (url) => {
    await expect(resolveTarget(checkUrl(url, strict).hostname, strict, 1000, answering())).rejects.toThrow(
      /is an? .* address of 1(27\.0\.0\.1|69\.254\.169\.254), a (loopback|link-local) address/,
    );
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '11.0.0.0',
    '100.128.0.0',
    '172.32.0.0',
    '192.169.0.0',
    '223.255.255.255',
    '2606:2800:220:1:248:1893:25c8:1946',
    '2a00:1450:4001::1',
  ])('accepts the public address %s', (address) => {
    expect(addressProblem(address, strict)).toBeUndefined();
  });

  it('lets the allow-list through, carried forms too, and nothing beside it', () => {
    expect(addressProblem('127.0.0.1', dev)).toBeUndefined();
    expect(addressProblem('::ffff:127.0.0.1', dev)).toBeUndefined();
    expect(addressProblem('64:ff9b::7f00:1', dev)).toMatch(/NAT64 .* loopback/);
    expect(addressProblem('10.1.200.3', dev)).toBeUndefined();
    expect(addressProblem('127.0.0.2', dev)).toMatch(/loopback/);
    expect(addressProblem('10.2.0.1', dev)).toMatch(/private/);
  });

  it('refuses a name when any address it resolves to is internal (a rebinding answer at send time)', async () => {
    await expect(resolveTarget('hooks.example.com', strict, 1000, answering('93.184.216.34'))).resolves.toHaveLength(1);
    await expect(resolveTarget('hooks.example.com', strict, 1000, answering('93.184.216.34', '169.254.169.254'))).rejects.toThrow(
      'hooks.example.com resolves to 169.254.169.254, a link-local address (allow it with WEBHOOK_ALLOWED_PRIVATE_RANGES)',
    );
    await expect(resolveTarget('[::1]', strict, 1000, answering())).rejects.toThrow(/loopback/);
  });
});
