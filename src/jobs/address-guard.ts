// Webhook URLs are chosen by API clients, so the gateway must not become a way to reach what
// only it can reach (SSRF): cloud metadata, link-local, every other special-purpose range of the
// IANA registries, and — unless the operator allows it — loopback and private networks, also when
// an IPv6 form carries such an IPv4 address (NAT64, 6to4, Teredo, mapped, compatible). Checked at submit (every address the name resolves to) and
// again at connect time (the name may resolve elsewhere by then: DNS rebinding).
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector } from '../util/http-client.js';
import type { buildConnector as Connectors } from 'undici';
import { classifyAddress } from './special-addresses.js';

export interface AddressPolicy {
  readonly allowLoopback: boolean;
  readonly allowPrivate: boolean;
}

export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/**
 * Why this address may not be called, or undefined: "127.0.0.1 is a loopback address (127.0.0.0/8);
 * webhooks.allow_loopback is off". An IPv6 address carrying an IPv4 address is judged as that IPv4
 * address (special-addresses.ts).
 */
export function refusedAddress(address: string, policy: AddressPolicy): string | undefined {
  const shown = address.replace(/^\[|\]$/g, '');
  const refusal = refusalOf(shown, policy);
  return refusal && `${shown} is ${refusal}`;
}

/** "a loopback address (127.0.0.0/8); webhooks.allow_loopback is off", or undefined when allowed. */
function refusalOf(address: string, policy: AddressPolicy): string | undefined {
  const kind = classifyAddress(address);
  if (!kind) return 'not an IP address';
  switch (kind.kind) {
    case 'public':
      return undefined;
    case 'loopback':
      return policy.allowLoopback ? undefined : `${kind.description}; webhooks.allow_loopback is off`;
    case 'private':
      return policy.allowPrivate ? undefined : `${kind.description}; webhooks.allow_private is off`;
    case 'never':
      return `${kind.description}; webhooks never call it`;
  }
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
    const refusal = refusalOf(address, policy);
    if (refusal) return isIP(host) ? `refused: ${host} is ${refusal}` : `refused: ${host} resolves to ${address}, ${refusal}`;
  }
  return undefined;
}

/**
 * An undici Agent whose connections go only to allowed addresses. A name is resolved here, at
 * connect time (whatever it resolved to at submit), and connected to an allowed address it
 * resolves to; an IP literal never reaches a lookup (Node connects to it directly), so it is
 * judged before the connector is called. `lookup` is the resolver (tests give one whose answer
 * changes between the submit check and the connect, as a rebinding DNS server does).
 */
export function guardedAgent(policy: AddressPolicy, timeoutMs: number, lookup: LookupAll = systemLookup): Agent {
  const resolveAll = async (hostname: string): Promise<{ address: string; family: number }[]> => {
    const family = isIP(hostname);
    return family ? [{ address: hostname, family }] : lookup(hostname);
  };
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
  const guardedConnect: Connectors.connector = (options, callback) => {
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
