import { GatewayCommand } from '../../src/cli/base-command.js';
import { openFiles } from '../../src/services.js';

export default class FilesGc extends GatewayCommand {
  static override description = 'Remove expired temporary files and their bytes now (the job runner also does it every minute)';
  static override examples = ['<%= config.bin %> files gc', '<%= config.bin %> files gc --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(FilesGc);
    await this.runWithServices(flags, async (services) => {
      const files = openFiles(services);
      let removed = { files: 0, bytes: 0 };
      for (;;) {
        const batch = await files.collectGarbage();
        removed = { files: removed.files + batch.files, bytes: removed.bytes + batch.bytes };
        if (batch.files === 0) break;
      }
      return { json: removed, text: `removed ${removed.files} expired file(s), ${removed.bytes} bytes` };
    });
  }
}
