import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { allowList, WebhookConfig } from './config';

/** A webhook URL or the address it resolves to is not one this service may call. */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

/** What callers may target: https only unless allowHttp; no internal address unless allow-listed. */
export interface TargetPolicy {
  allowHttp: boolean;
  allowed: BlockList;
}

export function targetPolicy(config: Pick<WebhookConfig, 'allowHttp' | 'allowedPrivateRanges'>): TargetPolicy {
  return { allowHttp: config.allowHttp, allowed: allowList(config.allowedPrivateRanges) };
}

// Addresses a webhook must not reach: this host, the private network, link-local (cloud metadata at
// 169.254.169.254), and the other special-purpose ranges that are not the public internet (RFC 6890).
const INTERNAL = new BlockList();
for (const [net, bits, _name] of [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
] as const)
  INTERNAL.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(net, bits, 'ipv6');

function kind(address: string, family: 'ipv4' | 'ipv6'): string {
  if (family === 'ipv6') return address === '::1' ? 'loopback' : /^fe[89ab]/i.test(address) ? 'link-local' : 'private or reserved';
  const first = Number(address.split('.')[0]);
  return first === 127 ? 'loopback' : address.startsWith('169.254.') ? 'link-local' : 'private or reserved';
}

/** Why `address` may not be called, or undefined when it may. IPv4-mapped IPv6 addresses are judged as IPv4. */
export function addressProblem(address: string, policy: TargetPolicy): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1] : address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (!INTERNAL.check(ip, family) || policy.allowed.check(ip, family)) return undefined;
  return `${ip} is a ${kind(ip, family)} address (allow it with WEBHOOK_ALLOWED_PRIVATE_RANGES)`;
}

/** Shape checks of a webhook URL that need no DNS. */
export function checkUrl(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('url is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new TargetRefused(`url must use https${policy.allowHttp ? ' or http' : ''}, not ${url.protocol.replace(':', '')}`);
  }
  // Credentials in a URL end up in logs and delivery records; receivers authenticate us by the signature.
  if (url.username || url.password) throw new TargetRefused('url must not carry credentials');
  return url;
}

type Lookup = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** Every address `hostname` resolves to, each checked: one internal address refuses the whole name. */
export async function resolveTarget(
  hostname: string,
  policy: TargetPolicy,
  timeoutMs = 5000,
  lookup: Lookup = dnsLookup,
): Promise<LookupAddress[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const addresses: LookupAddress[] = isIP(bare)
    ? [{ address: bare, family: isIP(bare) }]
    : await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new TargetRefused(`${hostname} did not resolve within ${timeoutMs} ms`)), timeoutMs);
        lookup(bare, { all: true }, (err, found) => {
          clearTimeout(timer);
          if (err || !found?.length) reject(new TargetRefused(`${hostname} does not resolve${err ? ` (${err.code ?? err.message})` : ''}`));
          else resolve(found);
        });
      });
  for (const { address } of addresses) {
    const problem = addressProblem(address, policy);
    if (problem) throw new TargetRefused(`${hostname} resolves to ${problem}`);
  }
  return addresses;
}

/** The whole check a URL gets on creation and update: its shape, then every address it resolves to. */
export async function checkTarget(raw: string, policy: TargetPolicy): Promise<URL> {
  const url = checkUrl(raw, policy);
  await resolveTarget(url.hostname, policy);
  return url;
}
