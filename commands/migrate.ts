import { Flags } from '@oclif/core';
import { GatewayCommand } from '../src/cli/base-command.js';

export default class Migrate extends GatewayCommand {
  static override description = 'Apply database migrations (also done by install.sh and when serve or worker starts)';
  static override examples = ['<%= config.bin %> migrate', '<%= config.bin %> migrate --status --json', 'GATEWAY_DATABASE_URL=postgres://gateway@db/gateway <%= config.bin %> migrate'];
  static override flags = {
    status: Flags.boolean({ description: 'list applied and pending migrations, change nothing', default: false, exclusive: ['rollback'] }),
    rollback: Flags.boolean({ description: 'undo the last batch of migrations', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Migrate);
    await this.runWithServices(flags, async ({ db, config }) => {
      const database = config.database.client === 'sqlite' ? `sqlite:${config.database.filename}` : 'postgres';
      if (flags.status) {
        const [completed, pending] = (await db.migrate.list()) as [{ name: string }[], { file: string; name?: string }[]];
        const json = { database, applied: completed.map((m) => m.name), pending: pending.map((m) => m.name ?? m.file) };
        return { json, text: `${database}\napplied: ${json.applied.join(', ') || '(none)'}\npending: ${json.pending.join(', ') || '(none)'}` };
      }
      if (flags.rollback) {
        const [, names] = (await db.migrate.rollback()) as [number, string[]];
        return { json: { database, rolled_back: names }, text: names.length ? `rolled back: ${names.join(', ')}` : 'nothing to roll back' };
      }
      const [, names] = (await db.migrate.latest()) as [number, string[]];
      return { json: { database, applied: names }, text: names.length ? `applied: ${names.join(', ')}` : `${database} is up to date` };
    }, { createDatabase: true });
  }
}
