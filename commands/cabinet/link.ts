import { Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { linkOrigin } from '../../src/process/link-origin.js';
import { GatewayCommand } from '../../src/cli/base-command.js';

export default class CabinetLink extends GatewayCommand {
  static override description =
    "Print a one-time login link to the web cabinet: an account's cabinet (--account) or the operator console (--admin). It opens one session, once, within cabinet.link_ttl (default 15m); creating it is audited. " +
    'The link points at cabinet.public_url when set, else at the address of the serve running on this machine; when neither is known it prints the path alone and says so.';
  static override examples = [
    '<%= config.bin %> cabinet link --account acme',
    '<%= config.bin %> cabinet link --admin',
    { description: 'JSON: {url, path, expires_at} (url is null when no address is known)', command: '<%= config.bin %> cabinet link --account acme --json' },
  ];
  static override flags = {
    account: Flags.string({ description: "account id or name: a link to this account's cabinet", exactlyOne: ['account', 'admin'] }),
    admin: Flags.boolean({ description: 'a link to the operator console (the admin API in the browser)', exactlyOne: ['account', 'admin'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CabinetLink);
    await this.runWithServices(flags, async ({ accounts, cabinet, config, db, now }) => {
      const account = flags.account === undefined ? null : await accounts.find(flags.account);
      const { link, path } = await cabinet.links.create({ kind: account ? 'account' : 'admin', accountId: account?.id ?? null, actor: cliActor() });
      const { origin } = await linkOrigin(db, config, now());
      const expiresAt = new Date(link.expiresAt).toISOString();
      const whose = account ? `the cabinet of account ${account.name}` : 'the operator console';
      const opens = `Opens ${whose}, once, until ${expiresAt}. Send it privately: whoever opens it first is logged in.`;
      if (origin === null) {
        return {
          json: { url: null, path, expires_at: expiresAt },
          text:
            `${path}\n\n${opens}\n` +
            "The gateway's address is not known: cabinet.public_url is not set and no serve is running on this machine. " +
            'Open this path on the address where the gateway answers (http://HOST:PORT), and set cabinet.public_url in the configuration (e.g. https://gateway.example.com) so that links are printed whole.',
        };
      }
      const url = `${origin}${path}`;
      return { json: { url, path, expires_at: expiresAt }, text: `${url}\n\n${opens}` };
    });
  }
}
