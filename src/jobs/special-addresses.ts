// What kind of address an IP address is, for the webhook SSRF guard: public, loopback, private
// network, or one that is never called. Built from the IANA IPv4 and IPv6 special-purpose address
// registries. IPv6 has several forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible,
// NAT64, 6to4, Teredo): a packet to them can end up at that IPv4 address (a dual-stack socket, a
// tunnel interface, a translator), so such an address is judged as the IPv4 address it carries —
// `64:ff9b::7f00:1` is loopback, `64:ff9b::808:808` (what DNS64 gives an IPv6-only host for
// 8.8.8.8) is public. Hand-written rather than `net.BlockList` because the guard must say WHICH
// range matched, and find the IPv4 address inside the IPv6 one.
import { isIP } from 'node:net';

/** How the policy treats an address: `never` is refused whatever webhooks.allow_* say. */
export type AddressKind = 'public' | 'loopback' | 'private' | 'never';

export interface AddressClass {
  readonly kind: AddressKind;
  /** What the address is, as a noun phrase with its range: "a loopback address (127.0.0.0/8)". Empty for public. */
  readonly description: string;
}

interface Range {
  readonly bytes: Uint8Array;
  readonly prefix: number;
  readonly cidr: string;
}

/** A range of the registry, or an IPv6 form that carries an IPv4 address at known byte offsets. */
type Rule =
  | { readonly range: Range; readonly kind: AddressKind; readonly what: string }
  | { readonly range: Range; readonly form: string; readonly carried: readonly Carried[] };

/** Where an IPv6 form carries an IPv4 address; Teredo stores its client address inverted. */
interface Carried {
  readonly offset: number;
  readonly role?: string;
  readonly inverted?: boolean;
}

function range(cidr: string): Range {
  const [network, prefix] = cidr.split('/');
  const bytes = addressBytes(network!);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, prefix: Number(prefix), cidr };
}

const fixed = (cidr: string, kind: AddressKind, what: string): Rule => ({ range: range(cidr), kind, what });
const carrying = (cidr: string, form: string, carried: Carried[]): Rule => ({ range: range(cidr), form, carried });

// First match wins, so a narrower range comes before the range that contains it.
const ipv4Rules: readonly Rule[] = [
  fixed('0.0.0.0/8', 'never', 'a "this network" address'),
  fixed('10.0.0.0/8', 'private', 'a private network address'),
  fixed('100.100.100.200/32', 'never', 'the Alibaba Cloud metadata address'),
  fixed('100.64.0.0/10', 'private', 'a shared (carrier-grade NAT) address'),
  fixed('127.0.0.0/8', 'loopback', 'a loopback address'),
  fixed('169.254.0.0/16', 'never', 'a link-local address, incl. cloud metadata'),
  fixed('172.16.0.0/12', 'private', 'a private network address'),
  fixed('192.0.0.0/24', 'never', 'an IETF protocol assignment'),
  fixed('192.0.2.0/24', 'never', 'a documentation address'),
  fixed('192.88.99.0/24', 'never', 'a deprecated 6to4 relay anycast address'),
  fixed('192.168.0.0/16', 'private', 'a private network address'),
  fixed('198.18.0.0/15', 'never', 'a benchmarking address'),
  fixed('198.51.100.0/24', 'never', 'a documentation address'),
  fixed('203.0.113.0/24', 'never', 'a documentation address'),
  fixed('224.0.0.0/4', 'never', 'a multicast address'),
  fixed('255.255.255.255/32', 'never', 'the limited broadcast address'),
  fixed('240.0.0.0/4', 'never', 'a reserved address'),
];

const ipv6Rules: readonly Rule[] = [
  fixed('::/128', 'never', 'the unspecified address'),
  fixed('::1/128', 'loopback', 'a loopback address'),
  carrying('::ffff:0:0/96', 'IPv4-mapped', [{ offset: 12 }]),
  carrying('::/96', 'deprecated IPv4-compatible', [{ offset: 12 }]),
  carrying('64:ff9b::/96', 'NAT64', [{ offset: 12 }]),
  // Where a local-use translator puts the IPv4 address inside its /48 is the network's choice, so
  // what it reaches cannot be told from the address.
  fixed('64:ff9b:1::/48', 'never', 'a local-use NAT64 address'),
  fixed('100::/64', 'never', 'a discard-only address'),
  fixed('100:0:0:1::/64', 'never', 'a dummy IPv6 prefix address'),
  carrying('2001::/32', 'Teredo', [
    { offset: 12, role: 'client', inverted: true },
    { offset: 4, role: 'server' },
  ]),
  fixed('2001::/23', 'never', 'an IETF protocol assignment'),
  fixed('2001:db8::/32', 'never', 'a documentation address'),
  carrying('2002::/16', '6to4', [{ offset: 2 }]),
  fixed('3fff::/20', 'never', 'a documentation address'),
  fixed('2000::/3', 'public', ''),
  fixed('fd00:ec2::/32', 'never', 'an AWS metadata address'),
  fixed('fc00::/7', 'private', 'a unique local (private network) address'),
  fixed('fe80::/10', 'never', 'a link-local address'),
  fixed('ff00::/8', 'never', 'a multicast address'),
  // Everything else (fec0::/10 site-local, 5f00::/16 SRv6, unassigned space) is not global unicast.
  fixed('::/0', 'never', 'an address outside global unicast (2000::/3)'),
];

const severity: Record<AddressKind, number> = { public: 0, loopback: 1, private: 2, never: 3 };

/** The class of an IP address (brackets and an IPv6 zone are ignored), or undefined when it is not one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const bytes = addressBytes(address);
  if (!bytes) return undefined;
  return classifyBytes(bytes);
}

function classifyBytes(bytes: Uint8Array): AddressClass {
  const rule = (bytes.length === 4 ? ipv4Rules : ipv6Rules).find((candidate) => inRange(bytes, candidate.range));
  // Every address matches a rule of its family except the public IPv4 space, which has none.
  if (!rule) return { kind: 'public', description: '' };
  const what = rule.range.cidr;
  if ('kind' in rule) {
    const description = rule.kind === 'public' ? '' : rule.range.prefix === 0 ? rule.what : `${rule.what} (${what})`;
    return { kind: rule.kind, description };
  }
  // An IPv6 form that carries IPv4 addresses is as bad as the worst of them (Teredo carries two).
  let worst: { carried: Carried; ipv4: string; class: AddressClass } | undefined;
  for (const carried of rule.carried) {
    const ipv4Bytes = bytes.slice(carried.offset, carried.offset + 4).map((byte) => (carried.inverted ? byte ^ 0xff : byte));
    const ipv4Class = classifyBytes(ipv4Bytes);
    if (!worst || severity[ipv4Class.kind] > severity[worst.class.kind]) worst = { carried, ipv4: ipv4Bytes.join('.'), class: ipv4Class };
  }
  if (worst!.class.kind === 'public') return worst!.class;
  const role = worst!.carried.role ? `${worst!.carried.role} ` : '';
  return { kind: worst!.class.kind, description: `${rule.form} (${what}) for ${role}${worst!.ipv4}, ${worst!.class.description}` };
}

function inRange(bytes: Uint8Array, range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  const whole = range.prefix >> 3;
  for (let index = 0; index < whole; index++) if (bytes[index] !== range.bytes[index]) return false;
  const rest = range.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[whole]! & mask) === (range.bytes[whole]! & mask);
}

/** 4 or 16 bytes of an IPv4 or IPv6 address (as `isIP` accepts them), or undefined. */
function addressBytes(text: string): Uint8Array | undefined {
  const address = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split('.').map(Number));
  if (family !== 6) return undefined;
  let hex = address;
  // A trailing dotted quad (::ffff:127.0.0.1) is two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(hex);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    hex = `${hex.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = hex.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const headGroups = groups(head);
  const tailGroups = groups(tail);
  const all = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}
