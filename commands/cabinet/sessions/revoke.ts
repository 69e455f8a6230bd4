import { Args, Flags } from '@oclif/core';
import { cliActor } from '../../../src/audit/audit-log.js';
import { GatewayCommand } from '../../../src/cli/base-command.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { wholeList } from '../../../src/cli/list-output.js';
import { presentSession } from '../../../src/cli/present-cabinet.js';

export default class CabinetSessionsRevoke extends GatewayCommand {
  static override description = 'End a web cabinet session (by id), or every live session of an account (--account); refused from the next request, audited';
  static override examples = ['<%= config.bin %> cabinet sessions revoke ses_…', '<%= config.bin %> cabinet sessions revoke --account acme'];
  static override args = { id: Args.string({ description: 'session id (ses_…)' }) };
  static override flags = { account: Flags.string({ description: 'revoke every live session of this account (id or name)' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CabinetSessionsRevoke);
    await this.runWithServices(flags, async ({ accounts, cabinet, now }) => {
      if ((args.id === undefined) === (flags.account === undefined)) throw new GatewayError('invalid_argument', 'give a session id or --account, not both');
      const present = (session: Parameters<typeof presentSession>[0]) => presentSession(session, now(), cabinet.settings.sessionIdleMs);
      if (args.id !== undefined) {
        const session = present(await cabinet.sessions.revoke(args.id, cliActor()));
        return { json: session, text: `revoked ${session.id} at ${session.revoked_at}` };
      }
      const account = await accounts.find(flags.account!);
      const revoked = (await cabinet.sessions.revokeAccount(account.id, cliActor())).map(present);
      return { json: wholeList(revoked), text: `revoked ${revoked.length} session(s) of account ${account.name}` };
    });
  }
}
