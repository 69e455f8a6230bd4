import { Flags } from '@oclif/core';
import { GatewayCommand } from '../src/cli/base-command.js';
import { backupSqlite, BackupNotSupportedError } from '../src/db/backup.js';

export default class Backup extends GatewayCommand {
  static override description =
    'Copy the SQLite database to a file, consistent while serve runs (VACUUM INTO: one read transaction, writers not blocked). PostgreSQL: use pg_dump (docs/operations.md)';
  static override examples = ['<%= config.bin %> backup --to /backups/gateway-2026-11-25.db', '<%= config.bin %> backup --to /backups/latest.db --force --json'];
  static override flags = {
    to: Flags.string({ description: 'the backup file to write (refused if it exists, unless --force)', required: true }),
    force: Flags.boolean({ description: 'replace an existing file', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Backup);
    await this.runWithServices(flags, async ({ config, db, now }) => {
      if (config.database.client !== 'sqlite') throw new BackupNotSupportedError('backup');
      const onProgress = flags.json ? undefined : (bytes: number) => process.stderr.write(`backup: ${(bytes / 1_048_576).toFixed(1)} MB written\n`);
      const result = await backupSqlite(db, flags.to, { force: flags.force, onProgress, now });
      const json = { from: config.database.filename, to: result.to, bytes: result.bytes, duration_ms: result.durationMs };
      return { json, text: `backed up ${json.from} to ${json.to}: ${json.bytes} bytes in ${json.duration_ms} ms` };
    });
  }
}
