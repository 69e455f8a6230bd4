import { Flags } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { pagedList } from '../../src/cli/list-output.js';
import { publicFile } from '../../src/storage/files.js';
import { openFiles } from '../../src/services.js';

export default class FilesList extends GatewayCommand {
  static override description = 'List stored files (generated results and uploads) that have not expired, newest first';
  static override examples = ['<%= config.bin %> files ls', '<%= config.bin %> files ls --account acme --limit 20 --json'];
  static override flags = {
    account: Flags.string({ description: 'only this account (id or name)' }),
    limit: Flags.integer({ description: 'at most this many (1–200)', default: 50, min: 1, max: 200 }),
    cursor: Flags.string({ description: 'the next_cursor of the previous page' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(FilesList);
    await this.runWithServices(flags, async (services) => {
      const account = flags.account ? await services.accounts.find(flags.account) : undefined;
      const page = await openFiles(services).list(account?.id ?? null, { limit: flags.limit, cursor: flags.cursor });
      const json = pagedList(page.items.map((file) => ({ ...publicFile(file), account_id: file.accountId })), page.nextCursor);
      const text =
        page.items.length === 0
          ? 'no files'
          : page.items
              .map((file) => `${String(file.id).padStart(6)}  ${file.purpose.padEnd(6)} ${file.mediaType.padEnd(10)} ${String(file.bytes).padStart(10)} B  ${file.permanent ? 'kept' : `expires ${new Date(file.expiresAt!).toISOString()}`}  ${file.accountId}`)
              .join('\n') + (page.nextCursor ? `\nmore: --cursor ${page.nextCursor}` : '');
      return { json, text };
    });
  }
}
