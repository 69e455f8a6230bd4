// The SSRF guard of webhook URLs: which addresses are refused under which policy, the submit
// check over every resolved address, and the connect-time check of the delivery agent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { request } from 'undici';
import { checkWebhookUrl, guardedAgent, refusedAddress } from '../../src/jobs/address-guard.js';

const closed = { allowLoopback: false, allowPrivate: false };
const open = { allowLoopback: true, allowPrivate: true };

/** A webhook receiver on loopback that answers "reached" and counts the requests that got through the guard. */
async function loopbackServer(t: ExecutionContext): Promise<{ port: number; readonly reached: number }> {
  let reached = 0;
  const server = createServer((_request, response) => {
    reached++;
    response.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port: (server.address() as AddressInfo).port,
    get reached() {
      return reached;
    },
  };
}

test('metadata, link-local, unspecified, multicast and reserved addresses are refused whatever the policy', (t) => {
  const linkLocal4 = 'a link-local address, incl. cloud metadata (169.254.0.0/16)';
  for (const [address, reason] of [
    ['169.254.169.254', linkLocal4],
    ['169.254.1.1', linkLocal4],
    ['0.0.0.0', 'a "this network" address (0.0.0.0/8)'],
    ['224.0.0.1', 'a multicast address (224.0.0.0/4)'],
    ['255.255.255.255', 'the limited broadcast address (255.255.255.255/32)'],
    ['100.100.100.200', 'the Alibaba Cloud metadata address (100.100.100.200/32)'],
    ['::', 'the unspecified address (::/128)'],
    ['fe80::1', 'a link-local address (fe80::/10)'],
    ['ff02::1', 'a multicast address (ff00::/8)'],
    ['fd00:ec2::254', 'an AWS metadata address (fd00:ec2::/32)'],
    ['fe80::a9fe:a9fe', 'a link-local address (fe80::/10)'],
    ['::ffff:169.254.169.254', `IPv4-mapped (::ffff:0:0/96) for 169.254.169.254, ${linkLocal4}`],
    ['::ffff:a9fe:a9fe', `IPv4-mapped (::ffff:0:0/96) for 169.254.169.254, ${linkLocal4}`],
    ['::ffff:0.0.0.0', 'IPv4-mapped (::ffff:0:0/96) for 0.0.0.0, a "this network" address (0.0.0.0/8)'],
  ]) {
    t.is(refusedAddress(address, open), `${address} is ${reason}; webhooks never call it`, address);
  }
});

test('loopback and private ranges are refused unless allowed; public addresses pass', (t) => {
  for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '[::1]']) {
    t.regex(refusedAddress(address, closed) ?? '', /loopback/, address);
    t.is(refusedAddress(address, { allowLoopback: true, allowPrivate: false }), undefined, address);
  }
  for (const address of ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '100.127.255.254', 'fc00::1', 'fd12::1', '::ffff:10.0.0.1', '::ffff:c0a8:101']) {
    t.regex(refusedAddress(address, closed) ?? '', /private/, address);
    t.is(refusedAddress(address, { allowLoopback: false, allowPrivate: true }), undefined, address);
  }
  for (const address of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '11.0.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) t.is(refusedAddress(address, closed), undefined, address);
  t.is(refusedAddress('not-an-ip', open), 'not-an-ip is not an IP address');
});

// Every special-purpose range of the IANA IPv4 and IPv6 registries and every IPv6 form that
// carries an IPv4 address, with the exact reason under a closed policy and whether the operator's
// allow_loopback / allow_private may open it. The first rows were accepted before (issue 13, item 9).
const never = 'webhooks never call it';
const loopbackOff = 'webhooks.allow_loopback is off';
const privateOff = 'webhooks.allow_private is off';
const table: [address: string, reason: string | undefined, openedBy?: 'allowLoopback' | 'allowPrivate'][] = [
  ['[64:ff9b::7f00:1]', `64:ff9b::7f00:1 is NAT64 (64:ff9b::/96) for 127.0.0.1, a loopback address (127.0.0.0/8); ${loopbackOff}`, 'allowLoopback'],
  ['[64:ff9b::a9fe:a9fe]', `64:ff9b::a9fe:a9fe is NAT64 (64:ff9b::/96) for 169.254.169.254, a link-local address, incl. cloud metadata (169.254.0.0/16); ${never}`],
  ['[2002:7f00:1::]', `2002:7f00:1:: is 6to4 (2002::/16) for 127.0.0.1, a loopback address (127.0.0.0/8); ${loopbackOff}`, 'allowLoopback'],
  ['[::127.0.0.1]', `::127.0.0.1 is deprecated IPv4-compatible (::/96) for 127.0.0.1, a loopback address (127.0.0.0/8); ${loopbackOff}`, 'allowLoopback'],
  ['[::7f00:1]', `::7f00:1 is deprecated IPv4-compatible (::/96) for 127.0.0.1, a loopback address (127.0.0.0/8); ${loopbackOff}`, 'allowLoopback'],
  ['[2001::1]', `2001::1 is Teredo (2001::/32) for client 255.255.255.254, a reserved address (240.0.0.0/4); ${never}`],
  ['192.0.2.1', `192.0.2.1 is a documentation address (192.0.2.0/24); ${never}`],
  ['198.18.0.1', `198.18.0.1 is a benchmarking address (198.18.0.0/15); ${never}`],
  // IPv4 registry
  ['0.0.0.0', `0.0.0.0 is a "this network" address (0.0.0.0/8); ${never}`],
  ['10.1.2.3', `10.1.2.3 is a private network address (10.0.0.0/8); ${privateOff}`, 'allowPrivate'],
  ['100.64.0.1', `100.64.0.1 is a shared (carrier-grade NAT) address (100.64.0.0/10); ${privateOff}`, 'allowPrivate'],
  ['100.100.100.200', `100.100.100.200 is the Alibaba Cloud metadata address (100.100.100.200/32); ${never}`],
  ['127.0.0.1', `127.0.0.1 is a loopback address (127.0.0.0/8); ${loopbackOff}`, 'allowLoopback'],
  ['169.254.169.254', `169.254.169.254 is a link-local address, incl. cloud metadata (169.254.0.0/16); ${never}`],
  ['172.16.0.1', `172.16.0.1 is a private network address (172.16.0.0/12); ${privateOff}`, 'allowPrivate'],
  ['192.0.0.8', `192.0.0.8 is an IETF protocol assignment (192.0.0.0/24); ${never}`],
  ['192.88.99.1', `192.88.99.1 is a deprecated 6to4 relay anycast address (192.88.99.0/24); ${never}`],
  ['192.168.1.1', `192.168.1.1 is a private network address (192.168.0.0/16); ${privateOff}`, 'allowPrivate'],
  ['198.19.255.255', `198.19.255.255 is a benchmarking address (198.18.0.0/15); ${never}`],
  ['198.51.100.7', `198.51.100.7 is a documentation address (198.51.100.0/24); ${never}`],
  ['203.0.113.7', `203.0.113.7 is a documentation address (203.0.113.0/24); ${never}`],
  ['224.0.0.1', `224.0.0.1 is a multicast address (224.0.0.0/4); ${never}`],
  ['240.0.0.1', `240.0.0.1 is a reserved address (240.0.0.0/4); ${never}`],
  ['255.255.255.255', `255.255.255.255 is the limited broadcast address (255.255.255.255/32); ${never}`],
  // IPv6 registry
  ['::', `:: is the unspecified address (::/128); ${never}`],
  ['::1', `::1 is a loopback address (::1/128); ${loopbackOff}`, 'allowLoopback'],
  ['::ffff:127.0.0.1', `::ffff:127.0.0.1 is IPv4-mapped (::ffff:0:0/96) for 127.0.0.1, a loopback address (127.0.0.0/8); ${loopbackOff}`, 'allowLoopback'],
  ['::ffff:c0a8:101', `::ffff:c0a8:101 is IPv4-mapped (::ffff:0:0/96) for 192.168.1.1, a private network address (192.168.0.0/16); ${privateOff}`, 'allowPrivate'],
  ['::ffff:169.254.169.254', `::ffff:169.254.169.254 is IPv4-mapped (::ffff:0:0/96) for 169.254.169.254, a link-local address, incl. cloud metadata (169.254.0.0/16); ${never}`],
  ['64:ff9b::a00:1', `64:ff9b::a00:1 is NAT64 (64:ff9b::/96) for 10.0.0.1, a private network address (10.0.0.0/8); ${privateOff}`, 'allowPrivate'],
  ['64:ff9b:1::a00:1', `64:ff9b:1::a00:1 is a local-use NAT64 address (64:ff9b:1::/48); ${never}`],
  ['100::1', `100::1 is a discard-only address (100::/64); ${never}`],
  ['2001:2::1', `2001:2::1 is an IETF protocol assignment (2001::/23); ${never}`],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', `2001:0:4136:e378:8000:63bf:3fff:fdd2 is Teredo (2001::/32) for client 192.0.2.45, a documentation address (192.0.2.0/24); ${never}`],
  ['2001:0:7f00:1::f7f7:f7f7', `2001:0:7f00:1::f7f7:f7f7 is Teredo (2001::/32) for server 127.0.0.1, a loopback address (127.0.0.0/8); ${loopbackOff}`, 'allowLoopback'],
  ['2001:db8::1', `2001:db8::1 is a documentation address (2001:db8::/32); ${never}`],
  ['2002:a9fe:a9fe::1', `2002:a9fe:a9fe::1 is 6to4 (2002::/16) for 169.254.169.254, a link-local address, incl. cloud metadata (169.254.0.0/16); ${never}`],
  ['3fff::1', `3fff::1 is a documentation address (3fff::/20); ${never}`],
  ['fd00:ec2::254', `fd00:ec2::254 is an AWS metadata address (fd00:ec2::/32); ${never}`],
  ['fd12::1', `fd12::1 is a unique local (private network) address (fc00::/7); ${privateOff}`, 'allowPrivate'],
  ['fe80::1', `fe80::1 is a link-local address (fe80::/10); ${never}`],
  ['ff02::1', `ff02::1 is a multicast address (ff00::/8); ${never}`],
  ['fec0::1', `fec0::1 is an address outside global unicast (2000::/3); ${never}`],
  ['5f00::1', `5f00::1 is an address outside global unicast (2000::/3); ${never}`],
  // Public: called under any policy, also in the forms that carry a public IPv4 address.
  ['8.8.8.8', undefined],
  ['2606:4700::1111', undefined],
  ['[2606:4700::1111]', undefined],
  ['::ffff:8.8.8.8', undefined],
  ['64:ff9b::808:808', undefined],
  ['2002:808:808::1', undefined],
];

test('every special-purpose address is refused with its exact reason; allow_loopback / allow_private open only their own kind', (t) => {
  for (const [address, reason, openedBy] of table) {
    t.is(refusedAddress(address, closed), reason, address);
    const onlyTheOther = openedBy === 'allowLoopback' ? { allowLoopback: false, allowPrivate: true } : { allowLoopback: true, allowPrivate: false };
    if (openedBy) {
      t.is(refusedAddress(address, { ...closed, [openedBy]: true }), undefined, `${address} allowed by ${openedBy}`);
      t.is(refusedAddress(address, onlyTheOther), reason, `${address} not allowed by the other switch`);
    } else {
      t.is(refusedAddress(address, open), reason, `${address} whatever the policy`);
    }
  }
});

test('the submit check names the address a host resolves to, and refuses the forms of item 9 as URL literals', async (t) => {
  const lookup = async () => [{ address: '64:ff9b::7f00:1', family: 6 }];
  t.is(await checkWebhookUrl('https://rebind.example/x', closed, lookup), 'refused: rebind.example resolves to 64:ff9b::7f00:1, NAT64 (64:ff9b::/96) for 127.0.0.1, a loopback address (127.0.0.0/8); webhooks.allow_loopback is off');
  t.is(await checkWebhookUrl('http://[2001::1]/hook', open, lookup), 'refused: 2001::1 is Teredo (2001::/32) for client 255.255.255.254, a reserved address (240.0.0.0/4); webhooks never call it');
  for (const [address, reason] of table.slice(0, 8)) {
    const url = `http://${address}:8080/hook`;
    // The URL parser writes an IPv6 host in its canonical form ([::127.0.0.1] → ::7f00:1).
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    t.is(await checkWebhookUrl(url, closed, lookup), `refused: ${reason!.replace(/^\S+/, host)}`, address);
  }
});

test('a webhook URL is checked over every address its host resolves to', async (t) => {
  const lookup = async (host: string) => (host === 'mixed.example' ? [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }] : [{ address: '93.184.216.34', family: 4 }]);
  t.is(await checkWebhookUrl('https://hooks.example/x', closed, lookup), undefined);
  t.regex((await checkWebhookUrl('https://mixed.example/x', closed, lookup)) ?? '', /resolves to 10\.0\.0\.5, a private/);
  t.regex((await checkWebhookUrl('ftp://hooks.example/x', closed, lookup)) ?? '', /only http and https/);
  t.regex((await checkWebhookUrl('https://user:pw@hooks.example/x', closed, lookup)) ?? '', /credentials/);
  t.regex((await checkWebhookUrl('http://[::1]:8080/x', closed, lookup)) ?? '', /loopback/);
  t.regex((await checkWebhookUrl('http://169.254.169.254/latest/meta-data', open, lookup)) ?? '', /metadata/);
  t.regex((await checkWebhookUrl('not a url', closed, lookup)) ?? '', /not a valid/);
  t.regex((await checkWebhookUrl('https://nowhere.invalid/x', closed, async () => Promise.reject(new Error('ENOTFOUND')))) ?? '', /does not resolve/);
});

test('DNS rebinding: a name that resolved to a public address at submit and to loopback at connect is refused at connect', async (t) => {
  const server = await loopbackServer(t);
  const { port } = server;
  // A rebinding DNS server: the first answer is public (and short-lived), every later one is loopback.
  const asked: string[] = [];
  const rebinding = async (host: string) => {
    asked.push(host);
    return [{ address: asked.length === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
  };
  t.is(await checkWebhookUrl(`http://rebind.example:${port}/hook`, closed, rebinding), undefined, 'the submit check sees a public address');
  const agent = guardedAgent(closed, 2000, rebinding);
  t.teardown(() => agent.close());
  await t.throwsAsync(request(`http://rebind.example:${port}/hook`, { dispatcher: agent }), {
    message: 'refused to connect to rebind.example: 127.0.0.1 is a loopback address (127.0.0.0/8); webhooks.allow_loopback is off',
  });
  t.deepEqual(asked, ['rebind.example', 'rebind.example'], 'the name was resolved again at connect');
  t.is(server.reached, 0, 'nothing reached the loopback server');
});

test('the delivery agent refuses to connect to a refused address, named or literal (localhost, IP literals, IPv6 forms)', async (t) => {
  const server = await loopbackServer(t);
  const { port } = server;
  const refusing = guardedAgent(closed, 2000);
  t.teardown(() => refusing.close());
  await t.throwsAsync(request(`http://localhost:${port}/`, { dispatcher: refusing }), { message: /refused to connect to localhost: .*loopback/ });
  // An IP literal is never looked up, so the connector itself must refuse it.
  await t.throwsAsync(request(`http://127.0.0.1:${port}/`, { dispatcher: refusing }), { message: /refused to connect to 127\.0\.0\.1: .*loopback/ });
  await t.throwsAsync(request(`http://[::ffff:127.0.0.1]:${port}/`, { dispatcher: refusing }), { message: /refused to connect to .*loopback/ });
  // An IPv6 literal carrying a loopback address (NAT64, 6to4) is refused before any connection is tried.
  for (const host of ['64:ff9b::7f00:1', '2002:7f00:1::']) {
    await t.throwsAsync(request(`http://[${host}]:${port}/`, { dispatcher: refusing }), { message: `refused to connect to ${host}: ${refusedAddress(host, closed)}` });
  }
  t.regex(refusedAddress('64:ff9b::7f00:1', closed) ?? '', /loopback/);
  t.is(server.reached, 0, 'no request reached the server');
  const allowing = guardedAgent({ allowLoopback: true, allowPrivate: false }, 2000);
  t.teardown(() => allowing.close());
  for (const host of ['localhost', '127.0.0.1']) {
    const answer = await request(`http://${host}:${port}/`, { dispatcher: allowing });
    t.is(await answer.body.text(), 'reached', host);
  }
  t.is(server.reached, 2);
});
