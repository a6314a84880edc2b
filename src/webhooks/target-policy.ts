import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
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

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** How ipaddr.js names the special-purpose ranges (IANA registries), in words. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'unspecified (this network)',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'shared (CGNAT)',
  private: 'private',
  uniqueLocal: 'unique-local (private)',
  deprecatedSiteLocal: 'site-local (private)',
  reserved: 'reserved (documentation, IETF protocol or future use)',
  benchmarking: 'benchmarking',
  as112: 'AS112 (DNS sink)',
  as112v6: 'AS112 (DNS sink)',
  amt: 'AMT (multicast tunnelling)',
  discard: 'discard-only',
  orchid2: 'ORCHID',
  deprecatedOrchid: 'ORCHID',
  droneRemoteIdProtocolEntityTags: 'DRIP',
  segmentRouting: 'segment routing (SRv6 SIDs)',
};

const cidr = (text: string) => ipaddr.parseCIDR(text) as [ipaddr.IPv6, number];
const ipv4At = (v6: ipaddr.IPv6, word: number, invert = false) => {
  const value = ((v6.parts[word] << 16) | v6.parts[word + 1]) ^ (invert ? 0xffffffff : 0);
  return new ipaddr.IPv4([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
};

/**
 * IPv6 forms that carry an IPv4 address (and reach it through a translator, a tunnel or the host's own stack):
 * each is judged by the IPv4 address it carries, every one of them for Teredo (server and client).
 * An embedding whose IPv4 position is the local network's choice (local-use NAT64) carries none we can read.
 */
const EMBEDDINGS: { name: string; prefix: [ipaddr.IPv6, number]; carried: (v6: ipaddr.IPv6) => ipaddr.IPv4[] }[] = [
  { name: 'IPv4-mapped', prefix: cidr('::ffff:0:0/96'), carried: (v6) => [ipv4At(v6, 6)] },
  { name: 'IPv4-translated (RFC 6145)', prefix: cidr('::ffff:0:0:0/96'), carried: (v6) => [ipv4At(v6, 6)] },
  { name: 'NAT64 (64:ff9b::/96)', prefix: cidr('64:ff9b::/96'), carried: (v6) => [ipv4At(v6, 6)] },
  { name: 'local-use NAT64 (64:ff9b:1::/48)', prefix: cidr('64:ff9b:1::/48'), carried: () => [] },
  { name: '6to4', prefix: cidr('2002::/16'), carried: (v6) => [ipv4At(v6, 1)] },
  { name: 'Teredo', prefix: cidr('2001::/32'), carried: (v6) => [ipv4At(v6, 2), ipv4At(v6, 6, true)] },
  { name: 'IPv4-compatible', prefix: cidr('::/96'), carried: (v6) => [ipv4At(v6, 6)] },
];

/** Only the global unicast block is allocated for the public internet; the rest of the IPv6 space is not a target. */
const GLOBAL_UNICAST = cidr('2000::/3');

/** The canonical form of an address (ipaddr.js reads `::a.b.c.d` as IPv4-mapped; the URL parser does not). */
function parseAddress(text: string): Address | undefined {
  let canonical = text;
  if (text.includes(':') && !text.includes('%')) {
    try {
      canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    } catch {
      return undefined;
    }
  }
  return ipaddr.isValid(canonical) ? ipaddr.parse(canonical) : undefined;
}

function allowListed(ip: Address, policy: TargetPolicy): boolean {
  return policy.allowed.check(ip.toString(), ip.kind());
}

/** Why an address is refused, as a noun phrase ("a loopback address"); `allowable` when the allow-list could let it through. */
interface Refusal {
  what: string;
  allowable: boolean;
}

const ALLOW_HINT = ' (allow it with WEBHOOK_ALLOWED_PRIVATE_RANGES)';
const hint = (refusal: Refusal) => (refusal.allowable ? ALLOW_HINT : '');
/** "an IPv4-mapped", "an unspecified", but "a unique-local". */
const withArticle = (words: string) => `${/^(?!uni)[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`;

/**
 * Why `address` may not be called, or undefined when it may: only public unicast (what ipaddr.js calls `unicast`
 * and, for IPv6, inside 2000::/3) unless allow-listed. An IPv6 address that carries an IPv4 address (mapped,
 * translated, NAT64, 6to4, Teredo, IPv4-compatible) is judged by the IPv4 address it carries; the allow-list
 * covers an IPv4-mapped form (the same socket to this host) but no other, which reach another host's view of it.
 */
function refusalOf(ip: Address, policy: TargetPolicy, allowListApplies: boolean): Refusal | undefined {
  if (allowListApplies && allowListed(ip, policy)) return undefined;
  const range = ip.range();
  const refused = (words: string) => ({ what: `${withArticle(words)} address`, allowable: allowListApplies });
  if (ip.kind() === 'ipv4') return range === 'unicast' ? undefined : refused(RANGE_WORDS[range] ?? range);
  const v6 = ip as ipaddr.IPv6;
  if (range === 'loopback' || range === 'unspecified') return refused(RANGE_WORDS[range]);
  const embedding = EMBEDDINGS.find((e) => v6.match(e.prefix));
  if (embedding) {
    const carried = embedding.carried(v6);
    if (!carried.length) return { what: `${withArticle(embedding.name)} address`, allowable: false };
    for (const v4 of carried) {
      const inner = refusalOf(v4, policy, allowListApplies && embedding.name === 'IPv4-mapped');
      if (inner) return { what: `${withArticle(embedding.name)} address of ${v4.toString()}, ${inner.what}`, allowable: inner.allowable };
    }
    return undefined;
  }
  if (!v6.match(GLOBAL_UNICAST)) return refused(range === 'unicast' ? 'unallocated (outside 2000::/3)' : (RANGE_WORDS[range] ?? range));
  return range === 'unicast' ? undefined : refused(RANGE_WORDS[range] ?? range);
}

/** Why `address` may not be called, as a sentence naming it, or undefined when it may (see `refusalOf`). */
export function addressProblem(address: string, policy: TargetPolicy): string | undefined {
  const ip = parseAddress(address);
  if (!ip) return `${address} is not an IP address`;
  const refusal = refusalOf(ip, policy, true);
  return refusal && `${address} is ${refusal.what}${hint(refusal)}`;
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
    const allowedHttp = policy.allowHttp ? ' or http' : '';
    // Name the setting that would allow it: http is refused only because WEBHOOK_ALLOW_HTTP is off.
    const setting = url.protocol === 'http:' ? ' (WEBHOOK_ALLOW_HTTP=true allows http, for development)' : '';
    throw new TargetRefused(`url must use https${allowedHttp}, not ${url.protocol.replace(':', '')}${setting}`);
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
    const ip = parseAddress(address);
    const refusal = ip ? refusalOf(ip, policy, true) : { what: 'not an IP address', allowable: false };
    if (!refusal) continue;
    // A literal host is its own address: "127.0.0.1 is a loopback address", not "127.0.0.1 resolves to 127.0.0.1 is ...".
    throw new TargetRefused(
      isIP(bare) ? addressProblem(address, policy)! : `${hostname} resolves to ${address}, ${refusal.what}${hint(refusal)}`,
    );
  }
  return addresses;
}

/** The whole check a URL gets on creation and update: its shape, then every address it resolves to. */
export async function checkTarget(raw: string, policy: TargetPolicy): Promise<URL> {
  const url = checkUrl(raw, policy);
  await resolveTarget(url.hostname, policy);
  return url;
}
