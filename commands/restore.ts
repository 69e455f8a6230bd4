import { Flags } from '@oclif/core';
import { GatewayCommand, type CommandOutput } from '../src/cli/base-command.js';
import { BackupNotSupportedError, restoreSqlite } from '../src/db/backup.js';

export default class Restore extends GatewayCommand {
  static override description =
    'Restore a SQLite backup as the database: checked first (PRAGMA integrity_check, and every account balance == sum(ledger), held == active holds), replaced only if it passes (the old file kept beside it); exits 1 when a check fails. Refused while a serve or worker is live on the database';
  static override examples = ['<%= config.bin %> restore --from /backups/gateway-2026-11-25.db', '<%= config.bin %> restore --from /backups/latest.db --force --json'];
  static override flags = {
    from: Flags.string({ description: 'the backup file (made by gateway backup)', required: true }),
    force: Flags.boolean({ description: 'restore even though a serve/worker heartbeat is recent (only when they are known to be gone)', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Restore);
    // No services: nothing may hold the database open while it is replaced.
    this.jsonOutput = flags.json;
    let output: CommandOutput;
    try {
      const config = this.loadConfiguration(flags.config);
      if (config.database.client !== 'sqlite') throw new BackupNotSupportedError('restore');
      const result = await restoreSqlite(flags.from, config.database.filename!, { force: flags.force, ownerGoneAfterMs: config.holds.ownerGoneAfterMs });
      const json = {
        from: result.from,
        to: result.to,
        restored: result.restored,
        previous: result.previous,
        integrity_check: result.integrity,
        accounts_checked: result.accounts,
        ledger_ok: result.problems.length === 0,
        problems: result.problems,
      };
      const text = result.restored
        ? `restored ${json.from} to ${json.to}${json.previous ? ` (the replaced database is kept as ${json.previous})` : ''}\nintegrity_check: ok\nledger: ${json.accounts_checked} accounts, balance == sum(ledger) and held == active holds for each`
        : `NOT restored: ${json.from} failed its checks; ${json.to} is unchanged\n${json.problems.join('\n')}`;
      output = { json, text, exitCode: result.restored ? 0 : 1 };
    } catch (error) {
      return this.fail(error);
    }
    this.print(output);
    if (output.exitCode) this.exit(output.exitCode);
  }
}
