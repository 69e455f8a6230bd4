// Who the client is (src/http/client-address.ts): the TCP peer unless the peer is a trusted
// proxy, whose X-Forwarded-For is read from the right and X-Forwarded-Proto believed.
import type { IncomingMessage } from 'node:http';
import test from 'ava';
import { ClientAddresses } from '../../src/http/client-address.js';
import { loadConfig } from '../../src/config/load.js';

function request(peer: string | undefined, headers: Record<string, string | string[]> = {}, encrypted = false): IncomingMessage {
  return { socket: { remoteAddress: peer, encrypted }, headers } as unknown as IncomingMessage;
}

test('no trusted proxy (the default): the peer, whatever the headers say', (t) => {
  const addresses = new ClientAddresses([]);
  t.is(addresses.of(request('127.0.0.1', { 'x-forwarded-for': '203.0.113.7' })), '127.0.0.1');
  t.is(addresses.of(request('::ffff:192.0.2.1')), '192.0.2.1', 'an IPv4-mapped peer as IPv4');
  t.is(addresses.of(request('2001:db8::1')), '2001:db8::1');
  t.is(addresses.of(request(undefined)), undefined, 'a socket already closed');
  t.false(addresses.secure(request('127.0.0.1', { 'x-forwarded-proto': 'https' })));
  t.true(addresses.secure(request('127.0.0.1', {}, true)), 'TLS to this process');
});

test('from a trusted proxy: the rightmost untrusted X-Forwarded-For entry; spoofed entries to its left are ignored', (t) => {
  const addresses = new ClientAddresses(['10.0.0.0/8', '::1']);
  t.is(addresses.of(request('10.0.0.5', { 'x-forwarded-for': '198.51.100.9, 203.0.113.7' })), '203.0.113.7');
  t.is(addresses.of(request('10.0.0.5', { 'x-forwarded-for': '203.0.113.7, 10.0.0.9' })), '203.0.113.7', 'a second trusted hop is skipped');
  t.is(addresses.of(request('::ffff:10.0.0.5', { 'x-forwarded-for': '::ffff:203.0.113.7' })), '203.0.113.7');
  t.is(addresses.of(request('::1', { 'x-forwarded-for': ['198.51.100.9', '203.0.113.7'] })), '203.0.113.7', 'repeated headers read as one list');
  t.is(addresses.of(request('10.0.0.5', { 'x-forwarded-for': '10.0.0.7, 10.0.0.9' })), '10.0.0.7', 'all hops trusted: the leftmost');
  t.is(addresses.of(request('10.0.0.5', { 'x-forwarded-for': 'unknown, 10.0.0.9' })), '10.0.0.9', 'an entry that is not an address: the hop that reported it');
  t.is(addresses.of(request('10.0.0.5')), '10.0.0.5', 'no header: the proxy itself');
  t.is(addresses.of(request('192.0.2.1', { 'x-forwarded-for': '203.0.113.7' })), '192.0.2.1', 'an untrusted peer: its header is ignored');
  t.true(addresses.secure(request('10.0.0.5', { 'x-forwarded-proto': 'https' })));
  t.true(addresses.secure(request('10.0.0.5', { 'x-forwarded-proto': 'HTTPS, http' })), 'the first (client-side) scheme');
  t.false(addresses.secure(request('10.0.0.5', { 'x-forwarded-proto': 'http' })));
  t.false(addresses.secure(request('192.0.2.1', { 'x-forwarded-proto': 'https' })), 'an untrusted peer cannot claim https');
});

test('server.trusted_proxies: addresses and CIDR blocks; anything else is a config error naming the entry', (t) => {
  const config = loadConfig({ raw: { server: { trusted_proxies: ['10.0.0.0/8', '2001:db8::/32', '127.0.0.1'] } }, env: {} });
  t.deepEqual(config.server.trustedProxies, ['10.0.0.0/8', '2001:db8::/32', '127.0.0.1']);
  t.deepEqual(loadConfig({ raw: {}, env: {} }).server.trustedProxies, []);
  const error = t.throws(() => loadConfig({ raw: { server: { trusted_proxies: ['10.0.0.0/33'] } }, env: {} }));
  t.regex(error!.message, /server\.trusted_proxies\.0.*expected an IPv4\/IPv6 address or CIDR block/s);
});
