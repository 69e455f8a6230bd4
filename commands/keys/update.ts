import { Args, Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { presentControls } from '../../src/auth/api-keys.js';
import { KeyPolicyFormatError } from '../../src/auth/key-policy.js';
import { allScopes, parseScopes } from '../../src/auth/scopes.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { controlsFromFlags, keyControlFlags } from '../../src/cli/key-flags.js';
import { presentKey } from '../../src/cli/present.js';
import { GatewayError } from '../../src/errors/gateway-error.js';

export default class KeysUpdate extends GatewayCommand {
  static override description =
    "Change a key's scopes, expiry, models, addresses, budget, rpm, tokens per minute, requests in flight or name without reissuing its secret; seen from the key's next request in every process. Written to the audit log";
  static override examples = [
    '<%= config.bin %> keys update key_… --expires 2027-01-31',
    "<%= config.bin %> keys update key_… --models 'gpt-4o,sim/*' --allow-ips any --budget 50 --budget-period week --json",
    '<%= config.bin %> keys update key_… --expires never --budget off',
    '<%= config.bin %> keys update key_… --tpm 50000 --max-in-flight none',
    '<%= config.bin %> keys update key_… --scopes chat,images',
  ];
  static override args = { id: Args.string({ description: 'key id (key_…)', required: true }) };
  static override flags = {
    ...keyControlFlags,
    rpm: Flags.string({ description: 'requests per minute for this key, or default (rate_limit.requests_per_minute)' }),
    name: Flags.string({ description: 'a label for the key' }),
    scopes: Flags.string({ description: `comma-separated scopes, replacing the key's (of ${allScopes.join(',')})` }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(KeysUpdate);
    await this.runWithServices(flags, async ({ apiKeys, now }) => {
      const current = await apiKeys.find(args.id);
      const controls = {
        ...controlsFromFlags(flags, now(), { currentPeriod: current.budgetPeriod }),
        ...rpmAndName(flags),
        ...(flags.scopes === undefined ? {} : { scopes: parseScopes(flags.scopes) }),
      };
      if (Object.keys(controls).length === 0) throw new GatewayError('invalid_argument', 'nothing to change: give --scopes, --expires, --models, --allow-ips, --budget, --budget-period, --tpm, --max-in-flight, --rpm or --name');
      const { before, after } = await apiKeys.update(args.id, controls, { actor: cliActor() });
      const [from, to] = [presentControls(before), presentControls(after)];
      const changed = (Object.keys(to) as (keyof typeof to)[]).filter((field) => JSON.stringify(from[field]) !== JSON.stringify(to[field]));
      const json = { ...presentKey(after), changed };
      const text = changed.length === 0 ? `${after.id}: nothing changed` : `updated ${after.id}: ${changed.map((field) => `${field} ${JSON.stringify(to[field])}`).join(', ')}`;
      return { json, text };
    });
  }
}

function rpmAndName(flags: { rpm?: string; name?: string }): { rpm?: number | null; name?: string } {
  const out: { rpm?: number | null; name?: string } = {};
  if (flags.rpm !== undefined) {
    if (flags.rpm === 'default') out.rpm = null;
    else if (/^\d{1,7}$/.test(flags.rpm) && Number(flags.rpm) >= 1 && Number(flags.rpm) <= 1_000_000) out.rpm = Number(flags.rpm);
    else throw new KeyPolicyFormatError('rpm', `"${flags.rpm}" is not a whole number from 1 to 1000000, or default`);
  }
  if (flags.name !== undefined) out.name = flags.name;
  return out;
}
