import { Args } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { publicFile } from '../../src/storage/files.js';
import { openFiles } from '../../src/services.js';

export default class FilesKeep extends GatewayCommand {
  static override description = "Keep a file permanently (it no longer expires), within its account's storage.permanent_quota";
  static override examples = ['<%= config.bin %> files keep 42'];
  static override args = { id: Args.integer({ description: 'file id', required: true, min: 1 }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(FilesKeep);
    await this.runWithServices(flags, async (services) => {
      const file = await openFiles(services).keep(null, args.id, services.config.storage.permanentQuotaBytes);
      return { json: publicFile(file), text: `file ${file.id} is kept permanently (${file.bytes} bytes)` };
    });
  }
}
