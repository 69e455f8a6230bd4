import { Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';

export default class CabinetLink extends GatewayCommand {
  static override description =
    'Print a one-time login link to the web cabinet: an account\'s cabinet (--account) or the operator console (--admin). It opens one session, once, within cabinet.link_ttl (default 15m); creating it is audited.';
  static override examples = [
    '<%= config.bin %> cabinet link --account acme',
    '<%= config.bin %> cabinet link --admin',
    { description: 'JSON: {url, expires_at}', command: '<%= config.bin %> cabinet link --account acme --json' },
  ];
  static override flags = {
    account: Flags.string({ description: "account id or name: a link to this account's cabinet", exactlyOne: ['account', 'admin'] }),
    admin: Flags.boolean({ description: 'a link to the operator console (the admin API in the browser)', exactlyOne: ['account', 'admin'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CabinetLink);
    await this.runWithServices(flags, async ({ accounts, cabinet }) => {
      const account = flags.account === undefined ? null : await accounts.find(flags.account);
      const { link, url } = await cabinet.links.create({ kind: account ? 'account' : 'admin', accountId: account?.id ?? null, actor: cliActor() });
      const expiresAt = new Date(link.expiresAt).toISOString();
      const whose = account ? `the cabinet of account ${account.name}` : 'the operator console';
      return {
        json: { url, expires_at: expiresAt },
        text: `${url}\n\nOpens ${whose}, once, until ${expiresAt}. Send it privately: whoever opens it first is logged in.`,
      };
    });
  }
}
