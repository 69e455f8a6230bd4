import { Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { Corrections } from '../../src/billing/corrections.js';
import { parseRub } from '../../src/util/money.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentCredit } from '../../src/cli/present.js';

export default class BalanceTopup extends GatewayCommand {
  static override description = 'Add money to an account (a topup, bonus or referral credit in the ledger). Written to the audit log';
  static override examples = ['<%= config.bin %> balance topup --account acme --amount 100.50', '<%= config.bin %> balance topup --account acme --amount 50 --kind bonus --note "welcome"'];
  static override flags = {
    account: Flags.string({ description: 'account id or name', required: true }),
    amount: Flags.string({ description: 'amount in RUB, up to 4 decimals (e.g. 100.50)', required: true }),
    kind: Flags.string({ description: 'ledger kind', options: ['topup', 'bonus', 'referral'], default: 'topup' }),
    note: Flags.string({ description: 'description shown in the balance history' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(BalanceTopup);
    await this.runWithServices(flags, async ({ accounts, db, ledger, now }) => {
      const amount = parseRub(flags.amount);
      if (amount === 0n) throw new RangeError('the amount must be more than zero');
      const account = await accounts.find(flags.account);
      const kind = flags.kind as 'topup' | 'bonus' | 'referral';
      const result = await new Corrections(db, ledger, now).topup({ accountId: account.id, amountUnits: amount, kind, note: flags.note ?? null, actor: cliActor() });
      // The same answer as POST /admin/v1/accounts/:id/topup (`reason`: the note).
      const json = presentCredit(result, kind, flags.note ?? null);
      return { json, text: `${kind} of ${json.amount_rub} RUB to ${account.name}: balance is now ${json.balance_rub} RUB (${json.transaction_id})` };
    });
  }
}
