// Webhook URLs are chosen by API clients, so the gateway must not become a way to reach what
// only it can reach (SSRF): cloud metadata, link-local, and — unless the operator allows it —
// loopback and private networks. Checked at submit (every address the name resolves to) and
// again at connect time (the name may resolve elsewhere by then: DNS rebinding).
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';

export interface AddressPolicy {
  readonly allowLoopback: boolean;
  readonly allowPrivate: boolean;
}

export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

function blockList(entries: [string, number, 'ipv4' | 'ipv6'][], addresses: [string, 'ipv4' | 'ipv6'][] = []): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of entries) list.addSubnet(network, prefix, family);
  for (const [address, family] of addresses) list.addAddress(address, family);
  return list;
}

/** Never called, whatever the policy: metadata services, link-local, unspecified, multicast, broadcast, reserved. */
const forbidden = blockList(
  [
    ['0.0.0.0', 8, 'ipv4'],
    ['169.254.0.0', 16, 'ipv4'], // link-local, incl. 169.254.169.254 (cloud metadata)
    ['100.100.100.200', 32, 'ipv4'], // Alibaba metadata
    ['192.0.0.0', 24, 'ipv4'],
    ['224.0.0.0', 4, 'ipv4'], // multicast
    ['240.0.0.0', 4, 'ipv4'], // reserved, incl. 255.255.255.255
    ['::', 128, 'ipv6'],
    ['fe80::', 10, 'ipv6'], // link-local
    ['ff00::', 8, 'ipv6'], // multicast
    ['fd00:ec2::', 32, 'ipv6'], // AWS metadata over IPv6 (fd00:ec2::254)
  ],
);
const loopback = blockList([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);
const privateRanges = blockList([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['fc00::', 7, 'ipv6'], // unique local
]);

/** Why this address may not be called, or undefined. IPv4-mapped IPv6 is judged as IPv4. */
export function refusedAddress(address: string, policy: AddressPolicy): string | undefined {
  let candidate = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(candidate);
  if (mapped) candidate = mapped[1]!;
  const family = isIP(candidate);
  if (family === 0) return `"${address}" is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (forbidden.check(candidate, type)) return `${address} is a metadata, link-local or reserved address`;
  if (!policy.allowLoopback && loopback.check(candidate, type)) return `${address} is a loopback address (webhooks.allow_loopback is off)`;
  if (!policy.allowPrivate && privateRanges.check(candidate, type)) return `${address} is a private network address (webhooks.allow_private is off)`;
  return undefined;
}

const systemLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Checks a webhook URL at submit: http(s), no credentials, every resolved address allowed. The problem, or undefined. */
export async function checkWebhookUrl(url: string, policy: AddressPolicy, lookup: LookupAll = systemLookup): Promise<string | undefined> {
  if (url.length > 2048) return 'the URL is longer than 2048 characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid absolute URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'only http and https URLs are called';
  if (parsed.username || parsed.password) return 'credentials in the URL are not allowed';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string }[];
  if (isIP(host)) addresses = [{ address: host }];
  else {
    try {
      addresses = await lookup(host);
    } catch {
      return `the host "${host}" does not resolve`;
    }
  }
  if (addresses.length === 0) return `the host "${host}" does not resolve`;
  for (const { address } of addresses) {
    const refused = refusedAddress(address, policy);
    if (refused) return `refused: ${host} resolves to ${refused}`;
  }
  return undefined;
}

/**
 * An undici Agent whose connections go only to allowed addresses. A name is resolved here and
 * connected to an allowed address it resolves to; an IP literal never reaches a lookup (Node
 * connects to it directly), so it is judged before the connector is called.
 */
export function guardedAgent(policy: AddressPolicy, timeoutMs: number): Agent {
  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    resolveAll(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
        const allowed = wanted.find((entry) => refusedAddress(entry.address, policy) === undefined);
        if (!allowed) {
          callback(connectRefused(hostname, refusedAddress(wanted[0]?.address ?? hostname, policy) ?? 'no usable address'), '', 0);
          return;
        }
        // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily): give it only the allowed one.
        if (options.all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [allowed]);
        else callback(null, allowed.address, allowed.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
  const connect = buildConnector({ lookup: guardedLookup, timeout: timeoutMs });
  const guardedConnect: buildConnector.connector = (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    const refused = isIP(host) ? refusedAddress(host, policy) : undefined;
    if (refused) callback(connectRefused(host, refused), null);
    else connect(options, callback);
  };
  return new Agent({ connect: guardedConnect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000 });
}

function connectRefused(host: string, reason: string): Error {
  return Object.assign(new Error(`refused to connect to ${host}: ${reason}`), { code: 'EADDRREFUSED' });
}

async function resolveAll(hostname: string): Promise<{ address: string; family: number }[]> {
  const family = isIP(hostname);
  return family ? [{ address: hostname, family }] : systemLookup(hostname);
}
