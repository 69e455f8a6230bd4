import { Args } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentKey } from '../../src/cli/present.js';

export default class KeysRevoke extends GatewayCommand {
  static override description = 'Revoke an API key; it is refused from the very next request. Written to the audit log';
  static override examples = ['<%= config.bin %> keys revoke key_…'];
  static override args = { id: Args.string({ description: 'key id (key_…)', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(KeysRevoke);
    await this.runWithServices(flags, async ({ apiKeys }) => {
      const apiKey = await apiKeys.revoke(args.id, { audit: { actor: cliActor() } });
      const json = presentKey(apiKey);
      return { json, text: `revoked ${apiKey.id} (${apiKey.prefix}-…${apiKey.last4}) at ${json.revoked_at}` };
    });
  }
}
