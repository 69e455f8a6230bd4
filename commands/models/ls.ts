import { Flags } from '@oclif/core';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { wholeList } from '../../src/cli/list-output.js';

export default class ModelsLs extends GatewayCommand {
  static override description = 'List the model catalog as loaded, with whether each model is enabled';
  static override examples = ['<%= config.bin %> models ls', '<%= config.bin %> models ls --all --json'];
  static override flags = { all: Flags.boolean({ description: 'include disabled models (their provider key is not set)', default: false }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(ModelsLs);
    await this.runWithServices(flags, async ({ catalog }) => {
      const models = catalog.models.filter((m) => flags.all || m.enabled);
      const json = models.map((m) => ({ ...m.publicObject, enabled: m.enabled, routes: m.routes.map((r) => `${r.provider.name}:${r.model}`) }));
      const text = table(
        models.map((m) => ({ id: m.id, type: m.type, enabled: m.enabled ? 'yes' : 'no', aliases: m.config.aliases.join(',') || '-', route: m.routes.map((r) => `${r.provider.name}:${r.model}`).join(',') || '-' })),
        ['id', 'type', 'enabled', 'aliases', 'route'],
      );
      return { json: wholeList(json), text };
    });
  }
}
