import { Args } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { FileNotFoundError, publicFile } from '../../src/storage/files.js';
import { openFiles } from '../../src/services.js';

export default class FilesShow extends GatewayCommand {
  static override description = 'Show one stored file';
  static override examples = ['<%= config.bin %> files show 42 --json'];
  static override args = { id: Args.integer({ description: 'file id', required: true, min: 1 }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(FilesShow);
    await this.runWithServices(flags, async (services) => {
      const file = await openFiles(services).get(null, args.id);
      if (!file) throw new FileNotFoundError(args.id);
      return { json: { ...publicFile(file), account_id: file.accountId, storage_key: file.storageKey } };
    });
  }
}
