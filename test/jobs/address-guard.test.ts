// The SSRF guard of webhook URLs: which addresses are refused under which policy, the submit
// check over every resolved address, and the connect-time check of the delivery agent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { request } from 'undici';
import { checkWebhookUrl, guardedAgent, refusedAddress } from '../../src/jobs/address-guard.js';

const closed = { allowLoopback: false, allowPrivate: false };
const open = { allowLoopback: true, allowPrivate: true };

test('metadata, link-local, unspecified, multicast and reserved addresses are refused whatever the policy', (t) => {
  for (const address of ['169.254.169.254', '169.254.1.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '100.100.100.200', '::', 'fe80::1', 'ff02::1', 'fd00:ec2::254', 'fe80::a9fe:a9fe', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::ffff:0.0.0.0']) {
    t.truthy(refusedAddress(address, open), address);
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
  t.truthy(refusedAddress('not-an-ip', open));
});

test('a webhook URL is checked over every address its host resolves to', async (t) => {
  const lookup = async (host: string) => (host === 'mixed.example' ? [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }] : [{ address: '93.184.216.34', family: 4 }]);
  t.is(await checkWebhookUrl('https://hooks.example/x', closed, lookup), undefined);
  t.regex((await checkWebhookUrl('https://mixed.example/x', closed, lookup)) ?? '', /10\.0\.0\.5 is a private/);
  t.regex((await checkWebhookUrl('ftp://hooks.example/x', closed, lookup)) ?? '', /only http and https/);
  t.regex((await checkWebhookUrl('https://user:pw@hooks.example/x', closed, lookup)) ?? '', /credentials/);
  t.regex((await checkWebhookUrl('http://[::1]:8080/x', closed, lookup)) ?? '', /loopback/);
  t.regex((await checkWebhookUrl('http://169.254.169.254/latest/meta-data', open, lookup)) ?? '', /metadata/);
  t.regex((await checkWebhookUrl('not a url', closed, lookup)) ?? '', /not a valid/);
  t.regex((await checkWebhookUrl('https://nowhere.invalid/x', closed, async () => Promise.reject(new Error('ENOTFOUND')))) ?? '', /does not resolve/);
});

test('the delivery agent refuses to connect to a refused address, named or literal (DNS rebinding, policy changes)', async (t) => {
  const server = createServer((_request, response) => response.end('reached'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  let reached = 0;
  server.on('request', () => reached++);
  const refusing = guardedAgent(closed, 2000);
  t.teardown(() => refusing.close());
  await t.throwsAsync(request(`http://localhost:${port}/`, { dispatcher: refusing }), { message: /refused to connect to localhost: .*loopback/ });
  // An IP literal is never looked up, so the connector itself must refuse it.
  await t.throwsAsync(request(`http://127.0.0.1:${port}/`, { dispatcher: refusing }), { message: /refused to connect to 127\.0\.0\.1: .*loopback/ });
  await t.throwsAsync(request(`http://[::ffff:127.0.0.1]:${port}/`, { dispatcher: refusing }), { message: /refused to connect to .*loopback/ });
  t.is(reached, 0, 'no request reached the server');
  const allowing = guardedAgent({ allowLoopback: true, allowPrivate: false }, 2000);
  t.teardown(() => allowing.close());
  for (const host of ['localhost', '127.0.0.1']) {
    const answer = await request(`http://${host}:${port}/`, { dispatcher: allowing });
    t.is(await answer.body.text(), 'reached', host);
  }
  t.is(reached, 2);
});
