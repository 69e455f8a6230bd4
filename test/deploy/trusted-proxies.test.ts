// Whose X-Forwarded-For the shipped deployments believe (issue 30 item 1). deploy/gateway.yaml
// trusted every private range, so behind the multi-host recipe any host of the LAN could name any
// client and pass a key's IP allowlist. Now the compose stack trusts exactly nginx's fixed address
// on its declared network, and deploy/gateway.yaml (what the multi-host recipe runs) trusts
// nobody. Docker does not run here: the files are read as data, and the config is loaded as the
// gateway loads it.
import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { installRoot, loadConfig } from '../../src/config/load.js';

interface Service {
  image?: string;
  environment?: Record<string, string>;
  networks?: Record<string, { ipv4_address?: string } | null> | string[];
  ports?: string[];
}

const read = (file: string) => readFileSync(path.join(installRoot, file), 'utf8');
const compose = parse(read('deploy/compose.yaml'), { merge: true }) as {
  services: Record<string, Service>;
  networks?: Record<string, { ipam?: { config?: { subnet?: string; ip_range?: string }[] } }>;
};
const gatewayServices = Object.entries(compose.services).filter(([, service]) => service.image === 'gateway:local');
const deployConfigPath = path.join(installRoot, 'deploy', 'gateway.yaml');

/** nginx's address on the stack's network, that network's declared subnet and the range Docker gives other containers addresses from. */
function loadBalancer(): { address: string; subnet: string; dynamicRange: string } {
  const networks = compose.services.lb!.networks as Record<string, { ipv4_address?: string }>;
  const networkNames = Object.keys(networks);
  if (networkNames.length !== 1) throw new Error(`lb is on one network, not ${networkNames.join(', ')}`);
  const pools = compose.networks?.[networkNames[0]!]?.ipam?.config ?? [];
  if (pools.length !== 1) throw new Error(`the network ${networkNames[0]} declares one subnet, not ${pools.length}`);
  return { address: networks[networkNames[0]!]!.ipv4_address!, subnet: pools[0]!.subnet!, dynamicRange: pools[0]!.ip_range! };
}

const blockOf = (cidr: string) => {
  const [network, prefix] = cidr.split('/');
  const block = new BlockList();
  block.addSubnet(network!, Number(prefix), 'ipv4');
  return block;
};

test("compose: every gateway process trusts exactly nginx's fixed address, which lies in the stack network's declared subnet", (t) => {
  const { address, subnet, dynamicRange } = loadBalancer();
  t.is(isIP(address), 4, `lb has a fixed IPv4 address (${address})`);
  t.true(blockOf(subnet).check(address, 'ipv4'), `${address} is in ${subnet}`);
  // Docker hands the other containers addresses from ip_range: outside it, nginx's cannot be taken first.
  t.true(blockOf(subnet).check(dynamicRange.split('/')[0]!, 'ipv4'), `${dynamicRange} is in ${subnet}`);
  t.false(blockOf(dynamicRange).check(address, 'ipv4'), `${address} is outside the dynamic range ${dynamicRange}`);
  // Every service of the stack is on that one network (none names another), so nginx's address is the stack's.
  for (const [name, service] of Object.entries(compose.services)) {
    if (name !== 'lb') t.is(service.networks, undefined, `${name}: on the stack's default network`);
  }
  for (const [name, service] of gatewayServices) {
    // The one variable of the service's environment that bears on it (the others need compose's interpolation).
    const trusted = service.environment!.GATEWAY_TRUSTED_PROXIES;
    const config = loadConfig({ configPath: deployConfigPath, env: trusted === undefined ? {} : { GATEWAY_TRUSTED_PROXIES: trusted } });
    t.deepEqual(config.server.trustedProxies, [address], `${name}: trusts nginx, and nothing else`);
    t.is(service.ports, undefined, `${name}: publishes no port (only lb is reached from outside)`);
  }
  const nginx = read('deploy/nginx.conf').replace(/#.*$/gm, '');
  t.regex(nginx, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/, 'nginx appends the peer it saw, the hop the gateway reads first');
  t.regex(nginx, /proxy_set_header X-Forwarded-Proto \$scheme;/);
});

test('the multi-host recipe (deploy/gateway.yaml on its own machines) and the example trust no proxy', (t) => {
  // The recipe's `docker run` passes its own environment file (docs/deployment.md), without GATEWAY_TRUSTED_PROXIES.
  t.deepEqual(loadConfig({ configPath: deployConfigPath, env: {} }).server.trustedProxies, []);
  t.deepEqual(loadConfig({ configPath: path.join(installRoot, 'config', 'gateway.example.yaml'), env: {} }).server.trustedProxies, []);
  const deployFile = parse(read('deploy/gateway.yaml')) as { server: { trusted_proxies: string[] } };
  t.deepEqual(deployFile.server.trusted_proxies, []);
});

test('GATEWAY_TRUSTED_PROXIES: addresses and blocks separated by commas replace server.trusted_proxies; anything else is refused', (t) => {
  const raw = { server: { trusted_proxies: ['10.0.0.0/8'] } };
  t.deepEqual(loadConfig({ raw, env: { GATEWAY_TRUSTED_PROXIES: '172.30.80.10, 2001:db8::/32' } }).server.trustedProxies, ['172.30.80.10', '2001:db8::/32']);
  t.deepEqual(loadConfig({ raw, env: { GATEWAY_TRUSTED_PROXIES: '' } }).server.trustedProxies, ['10.0.0.0/8'], 'empty: the file decides');
  const error = t.throws(() => loadConfig({ raw, env: { GATEWAY_TRUSTED_PROXIES: '172.30.80.10,lb' } }));
  t.is(error!.message, 'invalid configuration in the environment:\n  - GATEWAY_TRUSTED_PROXIES: expected IPv4/IPv6 addresses or CIDR blocks separated by commas, got "lb"');
});
