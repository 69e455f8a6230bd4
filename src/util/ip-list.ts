// Address lists (IPv4/IPv6 addresses and CIDR blocks) as Node's BlockList: a key's IP
// allowlist (src/auth/key-policy.ts) and the trusted proxies (src/http/client-address.ts).
import { BlockList, isIP } from 'node:net';

/** An IPv4-mapped IPv6 address (::ffff:1.2.3.4, as a dual-stack socket reports IPv4 peers) as IPv4. */
export function normalizedAddress(address: string): string {
  if (address.length < 8 || address.charCodeAt(0) !== 58 /* : */) return address; // the common case, without a regular expression
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** A BlockList of addresses and CIDR blocks, validated before (config schema, key policy). */
export function blockListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** Whether `address` (normalized) is in `list`; an address that is not an IP never is. */
export function listed(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Whether `entry` is an IPv4/IPv6 address or a CIDR block (10.0.0.0/8, 203.0.113.7, 2001:db8::/32). */
export function isAddressOrBlock(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  const maxPrefix = family === 6 ? 128 : 32;
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
  return family !== 0 && prefixOk && rest.length === 0;
}
