import { addressProblem, checkUrl, resolveTarget, targetPolicy, TargetRefused } from '../../src/webhooks/target-policy';

const strict = targetPolicy({ allowHttp: false, allowedPrivateRanges: [] });
const dev = targetPolicy({ allowHttp: true, allowedPrivateRanges: ['127.0.0.1/32', '10.1.0.0/16'] });
const answering =
  (...addresses: string[]) =>
  (_host: string, _o: unknown, cb: (err: null, a: { address: string; family: number }[]) => void) =>
    cb(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

describe('webhook target policy', () => {
  it('requires https unless http is allowed, and refuses credentials in the URL', () => {
    expect(() => checkUrl('http://hooks.example.com/x', strict)).toThrow('url must use https, not http');
    expect(checkUrl('http://hooks.example.com/x', dev).hostname).toBe('hooks.example.com');
    expect(() => checkUrl('https://user:pw@hooks.example.com/', strict)).toThrow('credentials');
    expect(() => checkUrl('ftp://hooks.example.com/', dev)).toThrow(TargetRefused);
  });

  it('refuses loopback, private, link-local and other special ranges, IPv4-mapped ones too', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      expect([a, addressProblem(a, strict)]).toEqual([a, expect.stringMatching(/address/)]);
    }
    for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']) expect(addressProblem(a, strict)).toBeUndefined();
  });

  it('lets the allow-list through, and nothing beside it', () => {
    expect(addressProblem('127.0.0.1', dev)).toBeUndefined();
    expect(addressProblem('10.1.200.3', dev)).toBeUndefined();
    expect(addressProblem('127.0.0.2', dev)).toMatch(/loopback/);
    expect(addressProblem('10.2.0.1', dev)).toMatch(/private/);
  });

  it('refuses a name when any address it resolves to is internal (a rebinding answer at send time)', async () => {
    await expect(resolveTarget('hooks.example.com', strict, 1000, answering('93.184.216.34'))).resolves.toHaveLength(1);
    await expect(resolveTarget('hooks.example.com', strict, 1000, answering('93.184.216.34', '169.254.169.254'))).rejects.toThrow(
      'hooks.example.com resolves to 169.254.169.254 is a link-local address',
    );
    await expect(resolveTarget('[::1]', strict, 1000, answering())).rejects.toThrow(/loopback/);
  });
});
