import { Flags } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { formatRub, parseRub } from '../../src/billing/money.js';

export default class BalanceTopup extends GatewayCommand {
  static override description = 'Add money to an account (a topup, bonus or referral credit in the ledger)';
  static override examples = ['<%= config.bin %> balance topup --account acme --amount 100.50', '<%= config.bin %> balance topup --account acme --amount 50 --kind bonus --note "welcome"'];
  static override flags = {
    account: Flags.string({ description: 'account id or name', required: true }),
    amount: Flags.string({ description: 'amount in RUB, up to 4 decimals (e.g. 100.50)', required: true }),
    kind: Flags.string({ description: 'ledger kind', options: ['topup', 'bonus', 'referral'], default: 'topup' }),
    note: Flags.string({ description: 'description shown in the balance history' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(BalanceTopup);
    await this.runWithServices(flags, async ({ accounts, ledger }) => {
      const amount = parseRub(flags.amount);
      if (amount === 0n) throw new RangeError('the amount must be more than zero');
      const account = await accounts.find(flags.account);
      const kind = flags.kind as 'topup' | 'bonus' | 'referral';
      const { transactionId, balanceUnits } = await ledger.credit(account.id, amount, kind, { description: flags.note ?? null });
      const json = { transaction_id: `txn_${transactionId}`, account_id: account.id, kind, amount_rub: formatRub(amount), balance_rub: formatRub(balanceUnits) };
      return { json, text: `${kind} of ${json.amount_rub} RUB to ${account.name}: balance is now ${json.balance_rub} RUB (${json.transaction_id})` };
    });
  }
}
